/**
 * The web application at `/` (the REST API stays under /api/v1 with API keys): session-cookie
 * sign-in, account settings and API tokens, meetings started from the browser with their live
 * transcript, projects and documents, search, and tasks. Server-rendered HTML; htmx and a small
 * script of ours add live updates, all served from this process.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { Store } from '@notetaker/store';
import type { AccountService } from '../identity/accounts.js';
import type { GrantWatch } from '../identity/grants.js';
import type { BotAccountService } from '../identity/bot-account-store.js';
import type { SecretBox } from '../identity/secrets.js';
import type { TokenService } from '../identity/tokens.js';
import { loadWebConfig } from './config.js';
import type { WebDeps } from './context.js';
import { webErrors } from './errors.js';
import { securityHeaders } from './headers.js';
import { accountPages } from './pages/accounts.js';
import { authPages } from './pages/auth.js';
import { botAccountPages } from './pages/bot-accounts.js';
import { calendarPages } from './pages/calendars.js';
import { documentPages } from './pages/documents.js';
import { meetingPages } from './pages/meetings.js';
import { projectPages } from './pages/projects.js';
import { taskPages } from './pages/tasks.js';
import { tokenPages } from './pages/tokens.js';
import { SignIns } from './sign-ins.js';
import { SetupClaim } from './setup-claim.js';
import { SigninThrottle } from './signin-throttle.js';
import { staticAssets } from './static.js';
import { UiMeetings } from './ui-meetings.js';
import { isApiPath } from '../http/api-path.js';

export type { WebDeps } from './context.js';

export interface WebOptions {
  bus: Bus;
  store: Store;
  logger: Logger;
  accounts: AccountService;
  tokens: TokenService;
  botAccounts: BotAccountService;
  box: SecretBox;
  /** Ends the live views of a session that signs out (and hears other gateways' sign-outs). */
  grants: GrantWatch;
  /** The raw environment (WEB_* variables). */
  env: NodeJS.ProcessEnv;
  skillsDir: string;
}

/** Opens the web application's collections (sessions, sign-in attempts, UI meetings). */
export async function createWeb(options: WebOptions): Promise<WebDeps> {
  const config = loadWebConfig(options.env);
  const { grants } = options;
  const signIns = new SignIns(options.store, options.box, config, (sessionId) =>
    grants.ended({ kind: 'web_session', sessionId }),
  );
  const uiMeetings = new UiMeetings(options.store);
  await signIns.init();
  await uiMeetings.init();
  return {
    bus: options.bus,
    logger: options.logger,
    accounts: options.accounts,
    tokens: options.tokens,
    botAccounts: options.botAccounts,
    signIns,
    throttle: new SigninThrottle(options.store, config),
    setup: new SetupClaim(options.store, options.accounts),
    uiMeetings,
    config,
    skillsDir: options.skillsDir,
    liveStreams: new Set(),
    grants,
  };
}

/** Ends every open live-view stream (browsers reconnect, to another instance if need be). */
export function closeLiveStreams(deps: WebDeps): void {
  for (const end of [...deps.liveStreams]) end();
}

/** The web routes; every other path (the REST API, ops endpoints, unknown paths) passes through. */
export function webInterface(deps: WebDeps): Middleware {
  const router = new Router();
  router.use(securityHeaders());
  router.use(webErrors(deps));
  router.get('/static/:name', staticAssets());
  authPages(router, deps);
  tokenPages(router, deps);
  accountPages(router, deps);
  botAccountPages(router, deps);
  meetingPages(router, deps);
  documentPages(router, deps);
  projectPages(router, deps);
  taskPages(router, deps);
  calendarPages(router, deps);
  const routes = router.routes() as Middleware;
  return (ctx, next) => (isApiPath(ctx.path) ? next() : routes(ctx, next));
}
