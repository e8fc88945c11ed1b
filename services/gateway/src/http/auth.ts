/**
 * API-key authentication for every /api/v1 route: `X-API-Key` or `Authorization: Bearer`.
 * The authenticated caller is put on ctx.state.caller for the routes.
 */
import type { Middleware } from 'koa';
import type { Caller } from '@notetaker/contracts';
import { errors } from '@notetaker/contracts';
import type { TokenService } from '../identity/tokens.js';

export function apiKeyAuth(tokens: TokenService): Middleware {
  return async (ctx, next) => {
    const apiKey = presentedKey(ctx.get('x-api-key'), ctx.get('authorization'));
    if (!apiKey) throw errors.invalidApiKey();
    const token = await tokens.authenticate(apiKey);
    const caller: Caller = { kind: 'token', tokenId: token.tokenId, capabilities: token.capabilities };
    ctx.state.caller = caller;
    return next();
  };
}

function presentedKey(headerKey: string, authorization: string): string | null {
  if (headerKey) return headerKey.trim();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match ? match[1] : null;
}
