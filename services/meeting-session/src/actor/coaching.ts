/**
 * Coaching of a worker's meetings: which coaches a meeting gets (the start's `coach`, or the
 * default) and the one model client they share.
 *
 * - `rules`: the rule coach (coach.ts), synchronously on each finalized segment.
 * - `ai`: the rule coach and the model coach beside it (model-coach.ts). The rules stay: they are
 *   exact about time (a 90 s monologue, 180 words a minute), which a model reading text is not,
 *   and they keep coaching when the model is slow, down or out of budget.
 * - `off`: no `coach_insight` at all.
 *
 * The default is `ai` when this worker has a model configured (LLM_MODEL or COACH_MODEL, with
 * LLM_BASE_URL or LLM_API_KEY, and a non-zero budget), else `rules`. The worker decides because it
 * makes the calls; `ai` asked of a worker without a model coaches with the rules alone.
 */
import type { CoachMode } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { createLlmClient, type OpenAI } from '@notetaker/llm';
import type { CoachConfig } from '../config.js';
import type { FinalSegment } from '../drivers/driver.js';
import { Coach, type CoachInsight } from './coach.js';
import { ModelCoach, type CoachClock, type ModelCoachMetrics, type ModelInsight } from './model-coach.js';

export type InsightPayload = (CoachInsight & { source: 'rules' }) | ModelInsight;

export interface CoachingMetrics extends ModelCoachMetrics {
  onInsight(category: string, source: 'rules' | 'model'): void;
}

export interface CoachingOptions {
  config: CoachConfig;
  logger: Logger;
  metrics: CoachingMetrics;
  /** Tests: the model coach's time and timers. */
  clock?: CoachClock;
}

/** One meeting's coaches. */
export interface MeetingCoach {
  /** The rule insights of this segment, now; the model coach only files it. */
  observe(index: number, segment: FinalSegment): InsightPayload[];
  stop(): void;
}

export class Coaching {
  private readonly client: OpenAI | null;

  constructor(private readonly options: CoachingOptions) {
    const { config } = options;
    // The model coach's call policy: its timeout, and no retries (the next call, an interval later, is one).
    this.client =
      config.maxTokensPerMeeting > 0
        ? createLlmClient(config.llm, { maxRetries: 0, timeoutMs: config.timeoutMs })
        : null;
  }

  /** The mode a start without `coach` gets. */
  get defaultMode(): CoachMode {
    return this.client ? 'ai' : 'rules';
  }

  /** `deliver` gets the model's insights later, outside the segment's handling. */
  forMeeting(
    meetingId: string,
    requested: CoachMode | null,
    deliver: (insights: InsightPayload[]) => void,
  ): MeetingCoach {
    const mode = requested ?? this.defaultMode;
    const logger = this.options.logger.child({ meetingId });
    const { metrics, config } = this.options;
    if (mode === 'ai' && !this.client) {
      logger.warn({}, 'coach "ai" asked, but no model is configured (LLM_MODEL, LLM_BASE_URL): the rules coach alone');
    }
    const rules = mode === 'off' ? null : new Coach();
    const model =
      mode === 'ai' && this.client
        ? new ModelCoach({
            client: this.client,
            model: config.llm.model as string,
            intervalMs: config.intervalMs,
            maxTokens: config.maxTokensPerMeeting,
            logger,
            metrics,
            clock: this.options.clock,
            deliver: (insights) => {
              for (const i of insights) metrics.onInsight(i.category, 'model');
              deliver(insights);
            },
          })
        : null;
    return {
      observe(index, segment) {
        model?.observe(index, segment);
        const insights = rules?.observe(segment) ?? [];
        for (const i of insights) metrics.onInsight(i.category, 'rules');
        return insights.map((i) => ({ ...i, source: 'rules' as const }));
      },
      stop: () => model?.stop(),
    };
  }
}
