/**
 * How long a bot may take to get in, and wait to be let in: one default each, owned by the
 * meeting's actor (actor/auto-leave.ts, JOIN_TIMEOUT_MS / LOBBY_TIMEOUT_MS). The drivers are given
 * the service's values (driver-factory.ts) and fall back to these same numbers when used alone.
 */
export const JOIN_TIMEOUT_DEFAULT_MS = 2 * 60_000;
export const LOBBY_TIMEOUT_DEFAULT_MS = 10 * 60_000;
