/** A self-signed certificate for the simulated platforms' real host names, made at start. */
import { generate } from 'selfsigned';

export const SIMULATED_HOSTS = [
  'meet.google.com',
  'teams.microsoft.com',
  'teams.live.com',
  'login.microsoftonline.com',
  'accounts.google.com',
  // Zoom: the launch page, the web client (app.) and the regional hosts invitations use (us05web.).
  'zoom.us',
  '*.zoom.us',
] as const;

export async function simulatorCertificate(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: SIMULATED_HOSTS[0] }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          ...SIMULATED_HOSTS.map((value) => ({ type: 2 as const, value })),
          { type: 7 as const, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
