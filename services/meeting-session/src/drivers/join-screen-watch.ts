/**
 * The screens a joining bot goes through, watched for one it is stuck on: a screen no rule knows
 * (a platform change that would otherwise look like a slow join until the join timeout), or one
 * it knows but cannot act on (a name field it cannot fill, a join that goes nowhere, a launcher
 * whose link does nothing). The same screen for `warnAfterMs` raises `join_screen_unknown` once;
 * another screen afterwards (the bot moved on) clears it. The waiting screens (the lobby, a
 * meeting not started) are not stuck: waiting there is what the bot is for. The bot keeps trying
 * either way. It also keeps the last screen seen, so that the join timeout's message names where
 * the bot was stuck.
 */
import type { PageState, Screen } from './page-readings.js';

type Seen = Pick<PageState<unknown>, 'screen' | 'url' | 'heading'>;

/** Screens where the bot waits for someone else; in_call and terminal end the joining. */
const NOT_STUCK: ReadonlySet<Screen> = new Set<Screen>(['lobby', 'not_started', 'in_call', 'terminal']);

export class JoinScreenWatch {
  private since = 0;
  private raised = false;
  private last: Seen | null = null;

  constructor(private readonly warnAfterMs: number) {}

  /** One reading of the page: 'raise' or 'clear' when the warning changes, else null. */
  observe(state: Seen, now: number): 'raise' | 'clear' | null {
    const moved = this.last?.screen !== state.screen;
    this.last = state;
    if (moved) {
      this.since = now;
      if (this.raised) {
        this.raised = false;
        return 'clear';
      }
    }
    if (this.raised || NOT_STUCK.has(state.screen) || now - this.since < this.warnAfterMs) return null;
    this.raised = true;
    return 'raise';
  }

  /** How long the page has shown the screen it shows now. */
  stuckFor(now: number): number {
    return this.last === null ? 0 : now - this.since;
  }

  /**
   * `the prejoin screen at teams.microsoft.com`, `an unknown screen ("Checking your browser") at
   * meet.google.com`: only the host of the URL (a link carries the meeting and more).
   */
  get lastSeen(): string {
    const seen = this.last;
    if (!seen) return 'no screen yet';
    if (seen.screen !== 'unknown') return `the ${seen.screen} screen at ${hostOf(seen.url)}`;
    const heading = seen.heading ? ` ("${seen.heading}")` : '';
    return `an unknown screen${heading} at ${hostOf(seen.url)}`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an unreadable URL';
  }
}
