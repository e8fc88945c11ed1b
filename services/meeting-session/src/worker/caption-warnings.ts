/**
 * What a worker does when one of its bots cannot read captions (drivers/caption-health.ts): the
 * operator must notice, since the meeting itself goes on and its document stays empty.
 * - one warning log line naming the meeting, the platform and what was seen;
 * - the meeting's record carries the warnings (GET /meetings/status, the web UI);
 * - metrics: meetings blind now by platform, and blind episodes;
 * - the page's structure there (no text, no names) written to DATA_DIR/caption-snapshots, one per
 *   meeting and episode (page-snapshots.ts): what whoever updates the selectors needs.
 * `join_screen_unknown` (joining, the bot is stuck on a screen: unknown, or known but not got past) also writes a PNG
 * screenshot beside its snapshot, and is counted apart; it is not blindness either.
 * `caption_language_unavailable` (the language asked for could not be selected) goes the same way,
 * with its own words: the bot does read captions, in the platform's default language, so it is on
 * the record and logged but not counted as blind; its episodes have a metric of their own, and a
 * snapshot only when the bot could not find the setting (a language the platform does not offer
 * has nothing to show).
 */
import type { MeetingWarning, Platform } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { CaptionWarningChange, PageEvidence } from '../drivers/driver.js';
import { protocol } from '../protocol.js';
import { writePageSnapshot } from './page-snapshots.js';

/** Not blindness: the captions are read, in a language other than the one asked for. */
const NOT_BLIND: ReadonlySet<MeetingWarning> = new Set([
  'caption_language_unavailable',
  'recording_unavailable',
  'recording_capture_degraded',
  'transcription_unavailable',
  'transcription_budget_exhausted',
  'join_screen_unknown',
]);

/** Whether `warning` means the bot reads no captions (caption_language_unavailable does not: see NOT_BLIND). */
export function isBlindness(warning: MeetingWarning): boolean {
  return !NOT_BLIND.has(warning);
}

/** The log line of a warning raised, and of one cleared. */
const RAISED: Record<MeetingWarning, string> = {
  captions_unreadable: 'the bot is transcribing nothing',
  captions_unavailable: 'the bot is transcribing nothing',
  caption_language_unavailable: 'the captions are not in the language asked for',
  recording_unavailable: 'recording storage does not take the audio (the worker spools it)',
  recording_capture_degraded: "the bot's page captures too little of the meeting's audio, or none",
  transcription_unavailable: 'speech is not transcribed (the detail says why: the engine, its queue, the page)',
  transcription_budget_exhausted: "the meeting's audio transcription budget is spent",
  join_screen_unknown: 'the bot is stuck on a join screen (one it does not recognise, or cannot get past)',
};
const CLEARED: Record<MeetingWarning, string> = {
  captions_unreadable: 'captions are read again',
  captions_unavailable: 'captions are read again',
  caption_language_unavailable: 'captions are in the language asked for',
  recording_unavailable: 'recording storage takes the audio again',
  recording_capture_degraded: "the bot's page captures the meeting's audio again",
  transcription_unavailable: 'speech is transcribed again',
  transcription_budget_exhausted: 'audio transcription goes on',
  join_screen_unknown: 'the bot moved on from the join screen it was stuck on',
};

export interface CaptionWarningsOptions {
  bus: Bus;
  logger: Logger;
  workerId: string;
  /** Where snapshots go; null writes none. */
  snapshotDir: string | null;
  /** A warning was raised (a metric's episode counter). */
  onEpisode?: (platform: Platform, warning: MeetingWarning) => void;
}

export class CaptionWarnings {
  private readonly active = new Map<string, { platform: Platform; warnings: Set<MeetingWarning> }>();

  constructor(private readonly options: CaptionWarningsOptions) {}

  /** Blind meetings now, by platform and warning (a caption language not selected is not blindness). */
  counts(): Array<{ platform: Platform; warning: MeetingWarning; meetings: number }> {
    const counted = new Map<string, { platform: Platform; warning: MeetingWarning; meetings: number }>();
    for (const { platform, warnings } of this.active.values()) {
      for (const warning of warnings) {
        if (!isBlindness(warning)) continue;
        const key = `${platform}|${warning}`;
        const entry = counted.get(key) ?? { platform, warning, meetings: 0 };
        entry.meetings++;
        counted.set(key, entry);
      }
    }
    return [...counted.values()];
  }

  async changed(meetingId: string, platform: Platform, change: CaptionWarningChange): Promise<void> {
    const entry = this.active.get(meetingId) ?? { platform, warnings: new Set<MeetingWarning>() };
    this.active.set(meetingId, entry);
    const { logger } = this.options;
    if (change.raised) {
      entry.warnings.add(change.warning);
      this.options.onEpisode?.(platform, change.warning);
      const snapshot = await this.writeSnapshot(meetingId, platform, change).catch((err: unknown) => {
        logger.error({ err, meetingId }, 'could not write the caption snapshot');
        return null;
      });
      const said = `${RAISED[change.warning]}: ${change.seen}`;
      const screenshot = snapshot && change.screenshot ? snapshot.replace(/\.json$/, '.png') : undefined;
      logger.warn({ meetingId, platform, warning: change.warning, seen: change.seen, snapshot, screenshot }, said);
    } else {
      entry.warnings.delete(change.warning);
      logger.info({ meetingId, platform, warning: change.warning }, CLEARED[change.warning]);
    }
    await this.report(meetingId, [...entry.warnings]);
  }

  /** The meeting's actor is gone: it no longer counts as blind. */
  gone(meetingId: string): void {
    this.active.delete(meetingId);
  }

  private async report(meetingId: string, warnings: MeetingWarning[]): Promise<void> {
    try {
      await call(this.options.bus, protocol.warnings, { meetingId, workerId: this.options.workerId, warnings });
    } catch (err) {
      this.options.logger.warn({ err, meetingId }, 'could not store the caption warnings on the record');
    }
  }

  /**
   * A failure that came with what the page looked like (a CAPTCHA: bot_detected): its snapshot
   * and screenshot written as a warning's are, and the log line names the files, since the bot
   * never goes back to look again.
   */
  async failedAtWall(
    log: { meetingId: string; reason: string; detail?: string; signedInAs?: string },
    platform: Platform,
    evidence: PageEvidence,
  ): Promise<void> {
    const { meetingId, reason } = log;
    const seen = log.detail ?? reason;
    const dir = this.options.snapshotDir;
    const page = {
      meetingId,
      platform,
      cause: { reason },
      seen,
      nodes: evidence.snapshot,
      screenshot: evidence.screenshot,
    };
    const files = dir
      ? await writePageSnapshot(dir, page).catch((err: unknown) => {
          this.options.logger.error({ err, meetingId }, 'could not write the page snapshot');
          return null;
        })
      : null;
    const where = files ? `; the page's snapshot: ${files.snapshot}` : '';
    this.options.logger.warn({ ...log, ...files }, `the bot failed (${reason}) on ${seen}${where}`);
  }

  private async writeSnapshot(
    meetingId: string,
    platform: Platform,
    change: Extract<CaptionWarningChange, { raised: true }>,
  ): Promise<string | null> {
    const dir = this.options.snapshotDir;
    if (!dir || (!isBlindness(change.warning) && change.snapshot.length === 0)) return null;
    const { warning, seen, snapshot: nodes, screenshot } = change;
    const written = await writePageSnapshot(dir, { meetingId, platform, cause: { warning }, seen, nodes, screenshot });
    return written.snapshot;
  }
}
