/**
 * The rule-based coach: it reads finalized segments and raises `coach_insight`s. Time comes from
 * the segments' own timestamps (when each turn started), so the rules behave the same live and
 * in tests. A segment's length is estimated from its words at 150 words per minute.
 *
 * Rules (each category at most once per 5 minutes of meeting time, counted between the
 * timestamps of the segments that raised them):
 * - talk_balance: over the last 5 minutes, with 2+ speakers and at least 100 words in all (a
 *   handful of words says nothing about balance), one speaker said more than 65% of the words.
 * - monologue: one speaker's turn (consecutive segments, nobody else in between) ran past 90 s.
 *   Once per turn; a turn that passes 90 s while the limit is active is reported on its first
 *   segment after the limit ends, if it is still going.
 * - pace: one speaker said more than 360 words (180 per minute) in the last 2 minutes.
 * - questions: a segment that asks something (ends in "?") is answered when a segment from
 *   another speaker starts at most 30 s after the question's estimated end. The first segment
 *   starting later than that, whoever speaks it, shows nobody answered: the question is raised
 *   then (if the limit allows) and forgotten either way. A newer question replaces a pending one.
 *   Segments drive everything: a question followed by silence is judged on the next segment.
 */
import type { FinalSegment } from '../drivers/driver.js';

/** The rule coach's categories (the model coach may raise them too). */
export const RULE_CATEGORIES = ['talk_balance', 'monologue', 'pace', 'questions'] as const;
export type CoachCategory = (typeof RULE_CATEGORIES)[number];

export interface CoachInsight {
  category: CoachCategory;
  message: string;
  speaker?: string;
  metrics: Record<string, number>;
}

const MINUTE = 60_000;
const COOLDOWN_MS = 5 * MINUTE;
const BALANCE_WINDOW_MS = 5 * MINUTE;
const BALANCE_SHARE = 0.65;
const BALANCE_MIN_WORDS = 100;
const MONOLOGUE_MS = 90_000;
const PACE_WINDOW_MS = 2 * MINUTE;
const PACE_WPM = 180;
const QUESTION_WAIT_MS = 30_000;
const MS_PER_WORD = MINUTE / 150;

interface Said {
  speaker: string;
  at: number;
  words: number;
}

export class Coach {
  private history: Said[] = [];
  private turn: { speaker: string; startedAt: number; words: number; flagged: boolean } | null = null;
  private question: { speaker: string; askedAt: number; text: string } | null = null;
  private lastRaised = new Map<CoachCategory, number>();

  observe(segment: FinalSegment): CoachInsight[] {
    const at = Date.parse(segment.timestamp);
    if (!Number.isFinite(at)) return [];
    const words = countWords(segment.text);
    const said: Said = { speaker: segment.speaker, at, words };
    this.history.push(said);
    const horizon = at - Math.max(BALANCE_WINDOW_MS, PACE_WINDOW_MS);
    while (this.history.length > 0 && this.history[0].at < horizon) this.history.shift();

    const insights: CoachInsight[] = [];
    const push = (insight: CoachInsight | null) => {
      if (!insight || !this.allows(insight.category, at)) return;
      this.lastRaised.set(insight.category, at);
      insights.push(insight);
    };
    push(this.unansweredQuestion(said));
    push(this.monologue(said));
    push(this.pace(said));
    push(this.talkBalance(at));
    if (segment.text.trim().endsWith('?')) {
      // The question is asked as the segment ends, not as it starts.
      this.question = { speaker: said.speaker, askedAt: at + words * MS_PER_WORD, text: segment.text.trim() };
    }
    return insights;
  }

  /** The per-category limit: nothing raised in this category within the last 5 minutes. */
  private allows(category: CoachCategory, at: number): boolean {
    const last = this.lastRaised.get(category);
    return last === undefined || at - last >= COOLDOWN_MS;
  }

  private unansweredQuestion(said: Said): CoachInsight | null {
    const q = this.question;
    if (!q) return null;
    const wait = said.at - q.askedAt;
    if (wait <= QUESTION_WAIT_MS) {
      // Within the window another speaker answers (or at least takes it up); the asker adding
      // something leaves the others their time.
      if (said.speaker !== q.speaker) this.question = null;
      return null;
    }
    // Past the window with no answer, whoever speaks now: a late reply is not an answer.
    this.question = null;
    return {
      category: 'questions',
      speaker: q.speaker,
      message: `${q.speaker} asked "${truncate(q.text, 80)}" and nobody else answered; consider pausing for replies`,
      metrics: { secondsWithoutAnswer: Math.round(wait / 1000) },
    };
  }

  private monologue(said: Said): CoachInsight | null {
    if (!this.turn || this.turn.speaker !== said.speaker) {
      this.turn = { speaker: said.speaker, startedAt: said.at, words: 0, flagged: false };
    }
    const turn = this.turn;
    turn.words += said.words;
    const duration = said.at + said.words * MS_PER_WORD - turn.startedAt;
    // Checking the limit before marking the turn keeps a blocked monologue pending, so it is
    // reported once the limit ends if the same turn is still going.
    if (turn.flagged || duration <= MONOLOGUE_MS || !this.allows('monologue', said.at)) return null;
    turn.flagged = true;
    return {
      category: 'monologue',
      speaker: said.speaker,
      message: `${said.speaker} has been speaking for over ${Math.floor(duration / 1000)} seconds without a break; invite others in`,
      metrics: { turnSeconds: Math.round(duration / 1000), words: turn.words },
    };
  }

  private pace(said: Said): CoachInsight | null {
    const from = said.at - PACE_WINDOW_MS;
    const words = this.history
      .filter((h) => h.speaker === said.speaker && h.at > from)
      .reduce((n, h) => n + h.words, 0);
    const wpm = words / (PACE_WINDOW_MS / MINUTE);
    if (wpm <= PACE_WPM) return null;
    return {
      category: 'pace',
      speaker: said.speaker,
      message: `${said.speaker} is speaking fast (about ${Math.round(wpm)} words per minute); slowing down helps listeners`,
      metrics: { wordsPerMinute: Math.round(wpm), windowSeconds: PACE_WINDOW_MS / 1000 },
    };
  }

  private talkBalance(now: number): CoachInsight | null {
    const recent = this.history.filter((h) => h.at > now - BALANCE_WINDOW_MS);
    const bySpeaker = new Map<string, number>();
    for (const h of recent) bySpeaker.set(h.speaker, (bySpeaker.get(h.speaker) ?? 0) + h.words);
    const total = [...bySpeaker.values()].reduce((a, b) => a + b, 0);
    if (bySpeaker.size < 2 || total < BALANCE_MIN_WORDS) return null;
    const [speaker, words] = [...bySpeaker.entries()].sort((a, b) => b[1] - a[1])[0];
    const share = words / total;
    if (share <= BALANCE_SHARE) return null;
    return {
      category: 'talk_balance',
      speaker,
      message: `${speaker} said ${Math.round(share * 100)}% of the words in the last 5 minutes; others may want a turn`,
      metrics: { share: Math.round(share * 1000) / 1000, words, totalWords: total, speakers: bySpeaker.size },
    };
  }
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** `text`, cut to at most `max` characters (an ellipsis last when cut). */
export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
