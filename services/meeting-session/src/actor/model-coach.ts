/**
 * The model coach, beside the rule coach (coach.ts): it reads a meeting's finalized segments and,
 * at most every COACH_INTERVAL_MS and only when new words came, asks a language model for at most
 * three insights a colleague would raise (a decision nobody confirmed, an action item without an
 * owner, an objection left unanswered...).
 *
 * Nothing it does can harm the meeting: `observe` only files the segment (the actor never waits
 * for a model), at most one call is in flight, a failed call is not retried (the next one comes an
 * interval later, with whatever came meanwhile), every call has a timeout, the meeting has a token
 * budget, and an answer that does not parse is dropped with a log line and a metric.
 *
 * The prompt is bounded however long the meeting: the system prompt, a running summary the model
 * itself keeps (it returns the new one with each answer), the last insights it raised (so it does
 * not raise them again), the segments it has not seen yet and a little of what it saw last time.
 * See PROMPT_LIMITS; test/model-coach.spec.ts holds a 2-hour meeting to it.
 */
import { z } from 'zod';
import type { Logger } from '@notetaker/observability';
import { describeLlmError, OpenAI, zodResponseFormat } from '@notetaker/llm';
import type { FinalSegment } from '../drivers/driver.js';
import { RULE_CATEGORIES, truncate } from './coach.js';

export const MODEL_CATEGORIES = [
  'decision',
  'action_item',
  'open_question',
  'objection',
  'risk',
  'follow_up',
  ...RULE_CATEGORIES,
] as const;
export type ModelCategory = (typeof MODEL_CATEGORIES)[number];

const MAX_INSIGHTS = 3;

/** What the model must answer (sent to it as the JSON schema of its structured output). */
export const coachAnswer = z.object({
  summary: z.string(),
  insights: z
    .array(
      z.object({
        category: z.enum(MODEL_CATEGORIES),
        message: z.string().min(1),
        speaker: z.string().nullable(),
        segments: z.array(z.number().int().min(0)),
      }),
    )
    .max(MAX_INSIGHTS),
});
const RESPONSE_FORMAT = zodResponseFormat(coachAnswer, 'coach_insights');

/** The parts of a prompt and their bounds, in characters. */
export const PROMPT_LIMITS = {
  /** The model's running summary, cut here whatever it returns. */
  summary: 1_000,
  /** Segments the model has not seen (more wait only while calls fail: the oldest are dropped). */
  newSegments: 6_000,
  /** Segments it saw in the last call, for continuity. */
  context: 1_500,
  /** One segment's line (a platform may finalise a long block). */
  segmentLine: 800,
  /** The insights already raised that are listed, and each one's length. */
  raisedListed: 8,
  raisedLine: 200,
} as const;
/** The answer's cap (max_tokens): three short insights and the summary fit well within it. */
const MAX_ANSWER_TOKENS = 700;
/** A rough tokens-per-character ratio, for the budget check before a call (and a server without usage). */
const CHARS_PER_TOKEN = 4;

const SYSTEM_PROMPT = [
  'You coach the people in a live meeting, as an attentive colleague would. You read the transcript a window at a time, with a summary of what came before.',
  'Raise only what a colleague would point out now: a decision made but not confirmed or recorded (decision); an action item without an owner or a date (action_item); a question left open or asked twice (open_question); an objection nobody answered (objection); a risk or blocker mentioned in passing (risk); a topic promised and skipped, or one that needs a follow-up (follow_up). Rarely: talk_balance, monologue, pace or questions.',
  `Raise at most ${MAX_INSIGHTS} insights, only about the new segments, none already raised, and none when nothing stands out: most windows need none.`,
  'message: one sentence of at most 200 characters, addressed to the participants. speaker: the person it is about, or null. segments: the numbers of the segments it rests on.',
  `summary: the summary of the whole meeting so far (the previous summary and the new segments), at most ${PROMPT_LIMITS.summary} characters: topics, decisions and owners, open points.`,
  'Answer with JSON only: {"summary": string, "insights": [{"category": string, "message": string, "speaker": string or null, "segments": [number]}]}.',
].join('\n');

export interface CoachTokens {
  prompt: number;
  completion: number;
}

/** A model insight as its `coach_insight` payload. */
export interface ModelInsight {
  category: ModelCategory;
  message: string;
  speaker?: string;
  /** The indexes of the segments it rests on (their positions in the transcript, from 0). */
  segments: number[];
  /** Rule insights carry their figures here; a model's has none, but the payload keeps one shape. */
  metrics: Record<string, number>;
  source: 'model';
  model: string;
  /** The tokens of the call that raised it. */
  tokens: CoachTokens;
}

export type CallOutcome = 'ok' | 'malformed' | 'timeout' | 'error';

export interface ModelCoachMetrics {
  onCall(outcome: CallOutcome, seconds: number, tokens: CoachTokens): void;
  onBudgetExhausted(): void;
}

/** Time and timers, replaceable so a test can run a 2-hour meeting in no time. */
export interface CoachClock {
  now(): number;
  /** Runs `run` after `ms`; returns the cancel. */
  after(ms: number, run: () => void): () => void;
}

export const realClock: CoachClock = {
  now: () => Date.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface ModelCoachOptions {
  client: OpenAI;
  model: string;
  intervalMs: number;
  /** Tokens (prompt and answer) the meeting may spend in all. */
  maxTokens: number;
  logger: Logger;
  metrics: ModelCoachMetrics;
  /** The insights of one answer, duplicates left out (the actor emits them from its mailbox). */
  deliver(insights: ModelInsight[]): void;
  clock?: CoachClock;
}

interface Line {
  index: number;
  text: string;
}

interface Raised {
  category: ModelCategory;
  line: string;
  words: Set<string>;
  segments: string;
}

export class ModelCoach {
  private readonly clock: CoachClock;
  /** Lines of the segments in the prompt's reach: the context (seen) and the new ones. */
  private lines: Line[] = [];
  /** The highest segment index a successful answer covered (its summary includes it). */
  private reviewedThrough = -1;
  private summary = '';
  private raised: Raised[] = [];
  private spent = 0;
  private lastCallAt: number | null = null;
  private cancelTimer: (() => void) | null = null;
  private inFlight: { controller: AbortController; done: Promise<void> } | null = null;
  private exhausted = false;
  private stopped = false;

  constructor(private readonly options: ModelCoachOptions) {
    this.clock = options.clock ?? realClock;
  }

  /** Files a finalized segment and makes sure a call comes (never waits for one). */
  observe(index: number, segment: FinalSegment): void {
    if (this.stopped || this.exhausted) return;
    const line = `#${index} ${segment.speaker.slice(0, 60) || 'Unknown'}: ${segment.text.replace(/\s+/g, ' ').trim()}`;
    this.lines.push({ index, text: truncate(line, PROMPT_LIMITS.segmentLine) });
    this.trim();
    // The interval starts with the first words, so the first call has something to read.
    this.lastCallAt ??= this.clock.now();
    this.schedule();
  }

  /** Tokens spent so far by this meeting. */
  get tokensSpent(): number {
    return this.spent;
  }

  /** Resolves when no call is in flight (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.inFlight) await this.inFlight.done;
  }

  /** The meeting is over: no further call, and the one in flight is abandoned. */
  stop(): void {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.inFlight?.controller.abort();
  }

  /** The prompt for what is filed now (exposed for the size tests). */
  messages(): Array<{ role: 'system' | 'user'; content: string }> {
    const fresh = this.lines.filter((l) => l.index > this.reviewedThrough);
    const seen = this.lines.filter((l) => l.index <= this.reviewedThrough);
    const raised = this.raised.slice(-PROMPT_LIMITS.raisedListed).map((r) => `- ${r.line}`);
    const user = [
      `Summary so far: ${this.summary || '(none yet: this is the start of the meeting)'}`,
      `Already raised:\n${raised.length > 0 ? raised.join('\n') : '(nothing)'}`,
      ...(seen.length > 0 ? [`Earlier segments (already reviewed):\n${seen.map((l) => l.text).join('\n')}`] : []),
      `New segments:\n${fresh.map((l) => l.text).join('\n')}`,
    ].join('\n\n');
    return [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: user },
    ];
  }

  /** Keeps the new lines and the context within their bounds, dropping the oldest. */
  private trim(): void {
    const fresh = this.lines.filter((l) => l.index > this.reviewedThrough);
    const seen = this.lines.filter((l) => l.index <= this.reviewedThrough);
    this.lines = [...keepNewest(seen, PROMPT_LIMITS.context), ...keepNewest(fresh, PROMPT_LIMITS.newSegments)];
  }

  private hasNew(): boolean {
    const last = this.lines.at(-1);
    return last !== undefined && last.index > this.reviewedThrough;
  }

  private schedule(): void {
    if (this.stopped || this.exhausted || this.inFlight || this.cancelTimer || !this.hasNew()) return;
    const wait = Math.max(0, (this.lastCallAt ?? 0) + this.options.intervalMs - this.clock.now());
    this.cancelTimer = this.clock.after(wait, () => {
      this.cancelTimer = null;
      this.call();
    });
  }

  private call(): void {
    if (this.stopped || this.inFlight || !this.hasNew()) return;
    const messages = this.messages();
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    const estimate = Math.ceil(promptChars / CHARS_PER_TOKEN) + MAX_ANSWER_TOKENS;
    if (this.spent + estimate > this.options.maxTokens) {
      this.exhausted = true;
      this.lines = [];
      this.options.metrics.onBudgetExhausted();
      this.options.logger.warn(
        { tokensSpent: this.spent, maxTokens: this.options.maxTokens },
        'the model coach spent its token budget for this meeting (COACH_MAX_TOKENS_PER_MEETING): no more model insights',
      );
      return;
    }
    this.lastCallAt = this.clock.now();
    const through = this.lines.at(-1)!.index;
    const shown = new Set(this.lines.map((l) => l.index));
    const controller = new AbortController();
    const done = this.ask(messages, promptChars, controller.signal, through, shown)
      // A bug of ours here must not become an unhandled rejection (it would end the process).
      .catch((err: unknown) => this.options.logger.error({ err }, 'the model coach failed'))
      .finally(() => {
        this.inFlight = null;
        this.schedule();
      });
    this.inFlight = { controller, done };
  }

  private async ask(
    messages: ReturnType<ModelCoach['messages']>,
    promptChars: number,
    signal: AbortSignal,
    through: number,
    shown: Set<number>,
  ): Promise<void> {
    const { client, model, metrics, logger } = this.options;
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    let completion: OpenAI.Chat.ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        { model, messages, response_format: RESPONSE_FORMAT, max_tokens: MAX_ANSWER_TOKENS, temperature: 0.2 },
        // The timeout, and no retries, are the client's (coaching.ts): the next call, an interval
        // later, is the retry (with newer words).
        { signal },
      );
    } catch (err) {
      if (this.stopped) return;
      const timedOut = err instanceof OpenAI.APIConnectionTimeoutError;
      metrics.onCall(timedOut ? 'timeout' : 'error', seconds(), { prompt: 0, completion: 0 });
      logger.warn(
        { error: describeLlmError(err) ?? String((err as Error)?.message ?? err), model },
        timedOut ? 'the model coach got no answer in time' : 'the model coach call failed',
      );
      return;
    }
    const content = completion.choices?.[0]?.message?.content ?? '';
    const tokens = {
      prompt: completion.usage?.prompt_tokens || Math.ceil(promptChars / CHARS_PER_TOKEN),
      completion: completion.usage?.completion_tokens || Math.ceil(content.length / CHARS_PER_TOKEN),
    };
    this.spent += tokens.prompt + tokens.completion;
    const answer = parseAnswer(content);
    if (!answer.success) {
      metrics.onCall('malformed', seconds(), tokens);
      logger.warn(
        { model, problem: answer.problem, answer: truncate(content, 300) },
        'the model coach answer was dropped: it does not parse',
      );
      return;
    }
    metrics.onCall('ok', seconds(), tokens);
    if (this.stopped) return;
    this.summary = truncate(answer.data.summary.replace(/\s+/g, ' ').trim(), PROMPT_LIMITS.summary);
    this.reviewedThrough = Math.max(this.reviewedThrough, through);
    this.trim();
    const fresh: ModelInsight[] = [];
    for (const found of answer.data.insights) {
      const insight: ModelInsight = {
        category: found.category,
        message: truncate(found.message.replace(/\s+/g, ' ').trim(), PROMPT_LIMITS.raisedLine),
        ...(found.speaker?.trim() ? { speaker: found.speaker.trim().slice(0, 100) } : {}),
        // Only segments the model was shown: anything else it made up.
        segments: [...new Set(found.segments.filter((i) => shown.has(i)))].sort((a, b) => a - b),
        metrics: {},
        source: 'model',
        model,
        tokens,
      };
      if (this.remember(insight)) fresh.push(insight);
    }
    if (fresh.length > 0) this.options.deliver(fresh);
  }

  /**
   * False for a point already raised: the same category, and the same segments or mostly the same
   * words (a model reading an overlapping window rephrases rather than repeats).
   */
  private remember(insight: ModelInsight): boolean {
    const words = wordsOf(insight.message);
    const segments = insight.segments.join(',');
    const duplicate = this.raised.some(
      (r) =>
        r.category === insight.category &&
        ((segments !== '' && r.segments === segments) || similarity(r.words, words) >= 0.6),
    );
    if (duplicate) {
      this.options.logger.debug({ category: insight.category }, 'the model coach raised a point again: not sent');
      return false;
    }
    this.raised.push({ category: insight.category, line: `[${insight.category}] ${insight.message}`, words, segments });
    if (this.raised.length > 50) this.raised.shift();
    return true;
  }
}

function parseAnswer(
  content: string,
): { success: true; data: z.infer<typeof coachAnswer> } | { success: false; problem: string } {
  let json: unknown;
  try {
    // Some servers wrap JSON in a code fence even when asked for JSON only.
    json = JSON.parse(content.trim().replace(/^```(?:json)?\s*|\s*```$/g, ''));
  } catch {
    return { success: false, problem: 'not JSON' };
  }
  const parsed = coachAnswer.safeParse(json);
  if (parsed.success) return { success: true, data: parsed.data };
  const issue = parsed.error.issues[0];
  return { success: false, problem: `${issue.path.join('.') || '(answer)'}: ${issue.message}` };
}

/** The newest lines whose total length is within `chars`. */
function keepNewest(lines: Line[], chars: number): Line[] {
  let total = 0;
  let from = lines.length;
  while (from > 0 && total + lines[from - 1].text.length + 1 <= chars) total += lines[--from].text.length + 1;
  return lines.slice(from);
}

function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 2),
  );
}

/** Jaccard similarity of two word sets. */
function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}
