/** What every page handler gets: the gateway's parts it uses, and the signed-in state of a request. */
import type { Context } from 'koa';
import type { Bus } from '@notetaker/bus';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { AccountInfo, AccountService } from '../identity/accounts.js';
import type { BotAccountService } from '../identity/bot-account-store.js';
import type { GrantWatch } from '../identity/grants.js';
import type { TokenService } from '../identity/tokens.js';
import type { WebConfig } from './config.js';
import type { Chrome, NavKey } from './layout.js';
import { noticeFrom } from './notices.js';
import type { SignInRecord, SignIns } from './sign-ins.js';
import type { SigninThrottle } from './signin-throttle.js';
import type { SetupClaim } from './setup-claim.js';
import type { UiMeetings } from './ui-meetings.js';

export interface WebDeps {
  bus: Bus;
  logger: Logger;
  accounts: AccountService;
  tokens: TokenService;
  botAccounts: BotAccountService;
  signIns: SignIns;
  throttle: SigninThrottle;
  setup: SetupClaim;
  uiMeetings: UiMeetings;
  config: WebConfig;
  /** SKILLS_DIR: the task form's skill picker lists its folders. */
  skillsDir: string;
  /** Ends of the open live-view streams, so a stopping gateway can close them at once. */
  liveStreams: Set<() => void>;
  /** Ends a live view when its session signs out on any gateway, or is found expired. */
  grants: GrantWatch;
}

export interface SignedIn {
  account: AccountInfo;
  session: SignInRecord;
}

/** Set by requireSignIn on every signed-in route. */
export function signedIn(ctx: Context): SignedIn {
  return ctx.state.web as SignedIn;
}

/** Meetings started here belong to no API key: the caller is the browser UI and its account. */
export function uiCaller(ctx: Context): Caller {
  return { kind: 'ui', accountId: signedIn(ctx).account.id };
}

/** The owner account (the first one, made at setup) manages what the whole instance shares: bot accounts. */
export async function isOwner(ctx: Context, deps: WebDeps): Promise<boolean> {
  return (await deps.accounts.ownerId()) === signedIn(ctx).account.id;
}

/** The page chrome of a signed-in page. */
export function chrome(ctx: Context, title: string, current?: NavKey): Chrome {
  const { account, session } = signedIn(ctx);
  return { title, account, csrf: session.csrfToken, current, notice: noticeFrom(ctx) };
}

/** The parsed form of a POST (read and CSRF-checked by the route's middleware). */
export function formOf(ctx: Context): URLSearchParams {
  return ctx.state.form as URLSearchParams;
}
