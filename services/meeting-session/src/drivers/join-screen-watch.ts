/**
 * The screens a joining bot goes through, watched for one it does not know. Unknown for
 * `warnAfterMs` (a page no rule of ours reads: a platform change that would otherwise look like a
 * slow join until the join timeout) raises `join_screen_unknown` once; a known screen afterwards
 * clears it. The bot keeps waiting either way. It also keeps the last screen seen, so that the
 * join timeout's message names where the bot was stuck.
 */
import type { PageState } from './page-readings.js';

type Seen = Pick<PageState<unknown>, 'screen' | 'url' | 'heading'>;

export class JoinScreenWatch {
  private unknownSince: number | null = null;
  private raised = false;
  private last: Seen | null = null;

  constructor(private readonly warnAfterMs: number) {}

  /** One reading of the page: 'raise' or 'clear' when the warning changes, else null. */
  observe(state: Seen, now: number): 'raise' | 'clear' | null {
    this.last = state;
    if (state.screen !== 'unknown') {
      this.unknownSince = null;
      if (!this.raised) return null;
      this.raised = false;
      return 'clear';
    }
    this.unknownSince ??= now;
    if (this.raised || now - this.unknownSince < this.warnAfterMs) return null;
    this.raised = true;
    return 'raise';
  }

  /** How long the page has shown an unknown screen, 0 if it does not. */
  unknownFor(now: number): number {
    return this.unknownSince === null ? 0 : now - this.unknownSince;
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
