/**
 * Why a meeting ended or failed: the `reason` of its last meeting_status event
 * (docs/api/reference.md#events) and of its record. Each list is written here once; meeting-session's
 * drivers, actor and registry import it.
 */
import { z } from 'zod';

/** Why a bot could not join or stay, as its driver reports it. */
export const DRIVER_FAILURES = [
  'admission_denied',
  'lobby_timeout',
  'meeting_not_found',
  /** Zoom: the passcode typed (the start's `passcode`) was refused; a link's pwd is never asked again. */
  'passcode_invalid',
  /** Zoom: the host never started the meeting; the bot waited on "waiting for the host" for the whole join timeout. */
  'meeting_not_started',
  /** The platform put up a CAPTCHA or bot wall ("I'm not a robot"); reported at once, never retried. */
  'bot_detected',
  /** The platform does not let guests in (Meet's "You can't join this video call", a tenant without anonymous join, a sign-in redirect). */
  'guest_refused',
  /** Signed in with a bot account, the platform sent the bot to its sign-in page: its storage state is no longer accepted. */
  'signed_out',
  'join_failed',
  'browser_unavailable',
  'browser_crashed',
] as const;
export const driverFailure = z.enum(DRIVER_FAILURES);
export type DriverFailure = z.infer<typeof driverFailure>;

/** The meeting ended for the bot: removed, or the host ended it for everyone. */
export const DRIVER_ENDS = ['removed', 'meeting_ended'] as const;
export type DriverEnd = (typeof DRIVER_ENDS)[number];

/** No bot account could take over from a refused guest (none at all, or every one signed out). */
export const SIGN_IN_FAILURES = ['sign_in_required', 'bot_account_signed_out'] as const;
export const signInFailure = z.enum(SIGN_IN_FAILURES);
export type SignInFailure = z.infer<typeof signInFailure>;

/** A meeting in `ended`: nothing failed. */
const END_REASONS = ['stopped', ...DRIVER_ENDS, 'alone', 'max_duration', 'worker_shutdown'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** A meeting in `error`. */
const ERROR_REASONS = [...DRIVER_FAILURES, 'worker_lost', ...SIGN_IN_FAILURES] as const;
export type ErrorReason = (typeof ERROR_REASONS)[number];
