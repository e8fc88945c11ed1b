/**
 * The authenticated caller travels to tool and resource handlers as the SDK's AuthInfo: the
 * endpoint authenticates the API key before any MCP exchange and passes the result through, with
 * what the handlers need of the request itself (the base of absolute links). The key itself is
 * not carried: handlers only need who asks and what they may do.
 */
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Caller } from '@notetaker/contracts';
import type { RequestContext } from '../operations/operation.js';

type TokenCaller = Extract<Caller, { kind: 'token' }>;

/** The caller and request of every exchange on a server that serves one caller only. */
export interface BoundContext {
  caller: TokenCaller;
  request: RequestContext;
}

export function authInfoOf(caller: TokenCaller, request: RequestContext): AuthInfo {
  return {
    token: caller.tokenId,
    clientId: caller.tokenId,
    scopes: [...caller.capabilities],
    extra: { caller, request },
  };
}

/** The caller of the request being handled; an exchange without one never gets past the endpoint. */
export function callerOf(ctx: { http?: { authInfo?: AuthInfo } }): TokenCaller {
  const caller = ctx.http?.authInfo?.extra?.caller as TokenCaller | undefined;
  if (!caller) throw new Error('MCP request without an authenticated caller');
  return caller;
}

/** The request being handled (set beside its caller by the endpoint). */
export function requestOf(ctx: { http?: { authInfo?: AuthInfo } }): RequestContext {
  const request = ctx.http?.authInfo?.extra?.request as RequestContext | undefined;
  if (!request) throw new Error('MCP request without its request context');
  return request;
}
