/**
 * What authentication costs: an authenticated gateway GET (key lookup by digest, then routing)
 * beside an unauthenticated one, over keep-alive connections. Target: auth adds < 0.2 ms.
 */
import http from 'node:http';
import { startTestStack } from '../support/stack.js';
import { formatRow, runWindowed } from './stats.js';

const TOTAL = 20_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

const t = await startTestStack();
try {
  const { apiKey } = await t.createToken();
  const port = Number(new URL(t.baseUrl).port);
  // Same work behind the edge: /healthz answers at once; the authenticated request is a 404
  // after authentication, so the difference is the authentication itself.
  const plain = () => get(port, '/healthz');
  const authed = () => get(port, '/api/v1/bench-missing', { 'X-API-Key': apiKey });
  if ((await authed()) !== 404 || (await plain()) !== 200) throw new Error('unexpected status');
  await runWindowed(2000, 8, plain);
  await runWindowed(2000, 8, authed);
  console.log('gateway: authenticated vs unauthenticated GET (keep-alive, loopback)');
  for (const window of [1, 16]) {
    const a = await runWindowed(TOTAL / 2, window, plain);
    const b = await runWindowed(TOTAL / 2, window, authed);
    console.log(formatRow(`  unauthenticated, ${window} in flight`, a));
    console.log(
      formatRow(`  authenticated,   ${window} in flight`, b, `  auth adds ${(b.p50 - a.p50).toFixed(3)} ms at p50`),
    );
  }
} finally {
  agent.destroy();
  await t.stop();
}
