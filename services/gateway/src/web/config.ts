/**
 * The web application's own environment variables. Durations are milliseconds so tests can
 * shrink them; the defaults are the product's rules.
 */
import { z } from 'zod';
import { envInt, envMs, parseEnv } from '@notetaker/config';

export const webEnvSchema = z.object({
  /** A session unused for this long ends (every request renews it). */
  WEB_SESSION_IDLE_MS: envMs(12 * 60 * 60_000),
  /** A session ends this long after sign-in, however active. */
  WEB_SESSION_MAX_MS: envMs(7 * 24 * 60 * 60_000),
  /** Failed sign-ins for one email from one address before that pair is locked out. */
  WEB_SIGNIN_MAX_FAILURES: envInt(5, 1, 1000),
  /** How long a lock-out lasts, and how long failures are remembered. */
  WEB_SIGNIN_LOCKOUT_MS: envMs(15 * 60_000),
  /** `auto`: Secure cookies when the request came over https (directly or per X-Forwarded-Proto). */
  WEB_COOKIE_SECURE: z.enum(['auto', 'true', 'false'], { error: 'must be auto, true or false' }).default('auto'),
});

export interface WebConfig {
  sessionIdleMs: number;
  sessionMaxMs: number;
  maxSigninFailures: number;
  lockoutMs: number;
  cookieSecure: 'auto' | 'always' | 'never';
}

export function loadWebConfig(env: NodeJS.ProcessEnv): WebConfig {
  const e = parseEnv(webEnvSchema, env);
  return {
    sessionIdleMs: e.WEB_SESSION_IDLE_MS,
    sessionMaxMs: e.WEB_SESSION_MAX_MS,
    maxSigninFailures: e.WEB_SIGNIN_MAX_FAILURES,
    lockoutMs: e.WEB_SIGNIN_LOCKOUT_MS,
    cookieSecure: e.WEB_COOKIE_SECURE === 'true' ? 'always' : e.WEB_COOKIE_SECURE === 'false' ? 'never' : 'auto',
  };
}
