/**
 * An OAuth 2.0 token endpoint's refresh grant (RFC 6749 §6), as Google's and Microsoft's answer
 * it: client credentials in the form body, a refused refresh token as 400 `invalid_grant`, access
 * tokens that the stand-in API accepts until they are revoked.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { json, type RecordedRequest } from './https-server.js';

export class TokenEndpoint {
  readonly clients = new Map<string, string>();
  readonly refreshTokens = new Set<string>();
  private readonly accessTokens = new Set<string>();
  /** Refresh grants answered (successful or not). */
  grants = 0;
  /** A new refresh token on every grant (Microsoft rotates them). */
  rotate = false;

  client(clientId = `client-${randomBytes(4).toString('hex')}`, secret = `secret-${randomBytes(8).toString('hex')}`) {
    this.clients.set(clientId, secret);
    const refreshToken = `rt-${randomBytes(12).toString('hex')}`;
    this.refreshTokens.add(refreshToken);
    return { clientId, clientSecret: secret, refreshToken };
  }

  /** The owner revoked the grant: the refresh token is refused from now on, and its access tokens too. */
  revoke(refreshToken: string): void {
    this.refreshTokens.delete(refreshToken);
    this.accessTokens.clear();
  }

  /** Access tokens handed out stop working (they expired early): the API answers 401. */
  expireAccessTokens(): void {
    this.accessTokens.clear();
  }

  authorized(request: RecordedRequest): boolean {
    const header = String(request.headers.authorization ?? '');
    return header.startsWith('Bearer ') && this.accessTokens.has(header.slice(7));
  }

  handle(request: RecordedRequest, response: ServerResponse): void {
    this.grants++;
    const form = new URLSearchParams(request.body);
    const secret = this.clients.get(form.get('client_id') ?? '');
    if (!secret || secret !== form.get('client_secret')) return json(response, 401, { error: 'invalid_client' });
    if (form.get('grant_type') !== 'refresh_token') return json(response, 400, { error: 'unsupported_grant_type' });
    const refreshToken = form.get('refresh_token') ?? '';
    if (!this.refreshTokens.has(refreshToken))
      return json(response, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    const accessToken = `at-${randomBytes(12).toString('hex')}`;
    this.accessTokens.add(accessToken);
    let next: string | undefined;
    if (this.rotate) {
      next = `rt-${randomBytes(12).toString('hex')}`;
      this.refreshTokens.delete(refreshToken);
      this.refreshTokens.add(next);
    }
    json(response, 200, {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: 3599,
      ...(next && { refresh_token: next }),
    });
  }
}
