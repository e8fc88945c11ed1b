/**
 * A terminal screen is one seen twice. Pages are read while they draw: a half-drawn page may show
 * its header's "Sign in" control before the pre-join form, or a wall's words for a moment while a
 * client swaps screens, and one such reading must not end the meeting. A terminal outcome (every
 * failure and end the page shows, `bot_detected` as well) is acted on only once seen in two
 * readings at least CONFIRM_MS apart with nothing else recognized in between: a reading of another
 * screen starts over, an unknown (half-drawn, unreadable) one changes nothing.
 */
import type { Screen } from './page-readings.js';

export const CONFIRM_MS = 500;

export class TerminalWatch {
  private pending: { key: string; since: number } | null = null;

  /** One reading: its screen and the terminal outcome it shows (null: none); true once that outcome is confirmed. */
  confirmed(screen: Screen, outcome: string | null, now: number): boolean {
    if (!outcome) {
      if (screen !== 'unknown') this.pending = null;
      return false;
    }
    const key = `${screen}:${outcome}`;
    if (this.pending?.key !== key) {
      this.pending = { key, since: now };
      return false;
    }
    return now - this.pending.since >= CONFIRM_MS;
  }
}
