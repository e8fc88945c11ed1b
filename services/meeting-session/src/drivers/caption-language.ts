/**
 * The meeting's spoken language for captions. A platform captions one language at a time, its
 * default unless someone picks another in its settings; left alone, a German meeting is captioned
 * as English nonsense. So once captions are on, the bot opens the platform's language setting,
 * reads the languages it offers, picks the one asked for and applies it: one click per reading,
 * through the platform's page script (`openLanguage`, `pickLanguage`, `finishLanguage`), once per meeting.
 *
 * The page's UI is pinned to English, so languages are matched by their English names, as
 * Intl.DisplayNames gives them for the BCP 47 tag. A language the platform does not offer, or a
 * setting the bot cannot reach within LANGUAGE_LIMITS, leaves the platform's default and is reported
 * (`caption_language_unavailable`); the meeting goes on either way.
 */
import type { Page } from 'puppeteer-core';
import { actions } from './page-actions.js';
import type { ActionMemo, PlatformAdapter } from './platform.js';

/** The meeting's page, and the platform's script to run in it. */
export interface LanguagePage {
  page: Page;
  adapter: Pick<PlatformAdapter<unknown>, 'run'>;
}

/** Why the language was not selected: what the operator's log line says, and where to snapshot the page. */
export interface LanguageProblem {
  seen: string;
  snapshot: 'toolbar' | null;
}

export const LANGUAGE_LIMITS = {
  /** One click along the way per this interval: a slow page is never clicked twice. */
  stepMs: 500,
  /** Clicks towards the list (Meet's path takes 4, Teams' 2-3); more means going round in circles. */
  maxClicks: 8,
  /** Readings on which nothing on the way could be found. */
  maxMisses: 3,
  /** From the first step to giving up. */
  maxMs: 30_000,
};

// 'standard': "English (United States)", "Spanish (Mexico)" as the platforms write them, not the
// default 'dialect' names ("American English", "Mexican Spanish").
const names = new Intl.DisplayNames(['en'], { type: 'language', languageDisplay: 'standard' });

/** The English name of a tag, as the platforms' English UIs write it: de-DE "German (Germany)", de "German". */
export function languageName(tag: string): string | null {
  try {
    const name = names.of(tag);
    return name && name.toLowerCase() !== tag.toLowerCase() ? name : null;
  } catch {
    return null;
  }
}

/**
 * The label to pick for `tag` among those offered: its exact name ("Spanish (Mexico)"), else the
 * language without a region ("Spanish"), else the language in its usual region ("German
 * (Germany)" for de), else any region of it; null when the language is not offered at all.
 */
export function matchLanguage(tag: string, offered: string[]): string | null {
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(tag);
  } catch {
    return null;
  }
  const base = languageName(locale.language);
  if (!base) return null;
  const likely = new Intl.Locale(locale.language).maximize();
  const wanted = [
    languageName(tag),
    base,
    languageName(`${locale.language}-${likely.region}`),
    languageName(`${locale.language}-${likely.script}-${likely.region}`),
  ];
  const key = (label: string) => label.trim().toLowerCase();
  for (const name of wanted) {
    const found = name && offered.find((label) => key(label) === key(name));
    if (found) return found;
  }
  // Any region of the language: "Korean (Korea)" where Intl says "Korean (South Korea)".
  return offered.find((label) => key(label.replace(/\s*\(.*\)$/, '')) === key(base)) ?? null;
}

/** Selecting one meeting's caption language, a step at a time. */
export class CaptionLanguage {
  private phase: 'open' | 'finish' | 'done' = 'open';
  private apply = false;
  private since: number | null = null;
  private readonly clicks: string[] = [];
  private misses = 0;
  private problem: LanguageProblem | null = null;

  constructor(
    readonly tag: string,
    private readonly limits = LANGUAGE_LIMITS,
  ) {}

  get pending(): boolean {
    return this.phase !== 'done';
  }

  /** The reason the language could not be selected, once (the driver raises it as a warning). */
  takeProblem(): LanguageProblem | null {
    const problem = this.problem;
    this.problem = null;
    return problem;
  }

  /** One step with captions on: at most one click, none within `stepMs` of the last. */
  async step({ page, adapter }: LanguagePage, memo: ActionMemo, now: number): Promise<void> {
    if (this.phase === 'done' || !memo.due('language', now, this.limits.stepMs)) return;
    this.since ??= now;
    if (this.phase === 'finish') {
      // Done whatever the page answers: a dialog left open is harmless, a second attempt is not.
      this.phase = 'done';
      await adapter.run(page, actions.finishLanguage, this.apply);
      return;
    }
    const opened = await adapter.run(page, actions.openLanguage);
    if (opened.list) await this.choose(opened.list, { page, adapter });
    else if (opened.clicked) this.clicks.push(opened.clicked);
    else this.misses++;
    const elapsed = now - this.since;
    const { maxClicks, maxMisses, maxMs } = this.limits;
    if (this.phase !== 'open') return;
    if (this.clicks.length >= maxClicks || this.misses >= maxMisses || elapsed >= maxMs) {
      const path = this.clicks.length > 0 ? `clicked ${runs(this.clicks)}` : 'found nothing to click';
      this.giveUp(
        `the caption language settings could not be reached in ${Math.round(elapsed / 1000)} s (${path}); ` +
          `captions stay in the platform's default language instead of ${this.describe()}`,
        'toolbar',
      );
    }
  }

  private async choose(
    { current, options }: { current: string; options: string[] },
    { page, adapter }: LanguagePage,
  ): Promise<void> {
    const choice = matchLanguage(this.tag, options);
    if (!choice) {
      const shown = options.length > 12 ? `${options.slice(0, 12).join(', ')}, ...` : options.join(', ');
      this.giveUp(
        `${this.describe()} is not among the ${options.length} caption languages offered (${shown}); captions stay in ${current || "the platform's default"}`,
        null,
      );
      return;
    }
    if (choice === current) {
      this.phase = 'finish';
      return;
    }
    if (await adapter.run(page, actions.pickLanguage, choice)) {
      this.apply = true;
      this.phase = 'finish';
    } else this.misses++;
  }

  private giveUp(seen: string, snapshot: LanguageProblem['snapshot']): void {
    this.problem = { seen, snapshot };
    this.phase = 'finish';
  }

  private describe(): string {
    const name = languageName(this.tag);
    return name ? `${this.tag} (${name})` : this.tag;
  }
}

/** "More options, Settings, Captions settings (6 times)": the clicks, repeats counted. */
function runs(clicks: string[]): string {
  const out: Array<[string, number]> = [];
  for (const click of clicks) {
    const last = out.at(-1);
    if (last?.[0] === click) last[1]++;
    else out.push([click, 1]);
  }
  return out.map(([click, n]) => (n > 1 ? `${click} (${n} times)` : click)).join(', ');
}
