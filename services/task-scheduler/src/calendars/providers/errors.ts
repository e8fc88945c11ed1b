/**
 * Why a read failed, as the calendar's status says it (`error` with a sentence, `disconnected`),
 * and when to try again. Sentences name the provider and the HTTP status, never an address or a
 * token: they are shown to the owner and logged.
 */
export type FaultKind =
  /** Retried on the next round (or after `retryAfterMs`). */
  | 'error'
  /** The refresh token is refused (invalid_grant): only the owner can fix it. */
  | 'disconnected';

export class CalendarFault extends Error {
  constructor(
    readonly kind: FaultKind,
    message: string,
    /** The provider said when (Retry-After), or the backoff does. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'CalendarFault';
  }
}

/** The provider's Retry-After (seconds or an HTTP date), in ms; null when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | null {
  if (typeof header !== 'string' || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
