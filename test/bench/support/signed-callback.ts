/** The benches' check of a callback's signature against the token's signing secret. */
import { verifySignature, type ReceivedCallback } from '../../support/callback-receiver.js';

/** Whether the callback is signed with `signingSecret`; one that is not is counted in `counts`. */
export function signedWith(signingSecret: string, c: ReceivedCallback, counts: { badSignatures: number }): boolean {
  if (verifySignature(signingSecret, c.rawBody, String(c.headers['x-service-signature']))) return true;
  counts.badSignatures++;
  return false;
}
