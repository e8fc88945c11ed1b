/**
 * Callback signing (docs/api/reference.md#signatures): `sha256=<lowercase hex HMAC-SHA256 of
 * the raw body>`, keyed with the UTF-8 bytes of the token's signing secret. The signed bytes are the very Buffer sent.
 */
import crypto from 'node:crypto';

export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}
