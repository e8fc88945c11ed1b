/**
 * One live meeting's actor: the single owner of its bot (driver), its status and its event
 * stream. Driver callbacks, timers and commands become messages in its mailbox and are handled one
 * at a time, so the state machine (joining -> lobby -> live -> leaving -> ended, error from any
 * state) never sees two things at once.
 */
import {
  recordingSavedPayload,
  routes,
  type DriverEnd,
  type DriverFailure,
  type EndReason,
  type ErrorReason,
  type MeetingStatus,
} from '@notetaker/contracts';
import { call, type Bus, type Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
import type { CaptionUpdate, DriverFactory, DriverListener, FinalSegment, MeetingDriver } from '../drivers/driver.js';
import type { MeetingSessionConfig } from '../config.js';
import { subjects, type AccountReply, type ActorState, type PlaceRequest } from '../protocol.js';
import type { Coaching, InsightPayload, MeetingCoach } from './coaching.js';
import { DocumentFlusher } from './document-flusher.js';
import { EventStream, type Outbox } from './event-stream.js';
import { Mailbox } from './mailbox.js';
import { Roster } from './participants.js';
import { AutoLeave } from './auto-leave.js';
import { driverFailureOf, leaveWithin, storeSegment } from './side-effects.js';
import type { CaptionWarnings } from '../worker/caption-warnings.js';
import { Recorder } from '../recording/recorder.js';

export interface ActorDeps {
  bus: Bus;
  logger: Logger;
  config: MeetingSessionConfig;
  displayName: string;
  /** The worker's driver factory (created on first use; failing means no browser). */
  driverFactory: () => Promise<DriverFactory>;
  /** Where the bot's caption warnings go (log, record, metrics, snapshot). */
  captionWarnings: Pick<CaptionWarnings, 'changed'>;
  /** The bot's seat on the worker: on its way out, then free once the browser is closed. */
  seat: { leaving(): void; released(): void };
  /** Called once, when the actor has finished and released everything. */
  onExit: (meetingId: string) => void;
  /** The worker's outbox, which stores and publishes the stream's events. */
  outbox: Outbox;
  /** The registry's next bot account for this meeting: the guest was refused, or `signedOut` was. */
  nextAccount: (signedOut: string | null) => Promise<AccountReply>;
  /** The worker's coaching: this meeting's coaches, by the start's `coach`. */
  coaching: Pick<Coaching, 'forMeeting'>;
}

/** running: normal; leaving: the bot is on its way out (late segments still count); closed: done. */
type Phase = 'running' | 'leaving' | 'closed';

export class MeetingActor {
  readonly meetingId: string;
  private status: MeetingStatus = 'joining';
  private phase: Phase = 'running';
  private driver: MeetingDriver | null = null;
  private readonly mailbox: Mailbox;
  private readonly stream: EventStream;
  private readonly roster = new Roster();
  private readonly coach: MeetingCoach;
  private readonly timers: AutoLeave;
  private readonly flusher: DocumentFlusher;
  /** The meeting's audio, when the start asked for it. */
  private readonly recorder: Recorder | null;
  private segmentCount = 0;
  /** When the bot set off to leave: the recording's timeline ends there. */
  private leftAt = 0;
  /** The bot account the bot joins with now (null: a guest). */
  private account: PlaceRequest['account'];
  private stopSub: Subscription | null = null;
  private exited = false;

  constructor(
    private readonly deps: ActorDeps,
    private readonly spec: PlaceRequest,
  ) {
    this.meetingId = spec.meetingId;
    this.account = spec.account;
    const log = deps.logger.child({ meetingId: spec.meetingId });
    this.mailbox = new Mailbox((err) => log.error({ err }, 'actor message failed'));
    this.stream = new EventStream({
      meetingId: spec.meetingId,
      outbox: deps.outbox,
      state: () => this.state(),
      onFenced: () => this.abandon('the registry closed the meeting'),
    });
    // The model's insights arrive later, as mailbox messages: a segment never waits for a model.
    this.coach = deps.coaching.forMeeting(spec.meetingId, spec.coach, (insights) =>
      this.mailbox.post(() => this.emitInsights(insights)),
    );
    this.timers = new AutoLeave(deps.config, (why) => this.mailbox.post(() => this.onTimer(why)));
    this.flusher = new DocumentFlusher({
      bus: deps.bus,
      logger: log,
      meetingId: spec.meetingId,
      enabled: spec.saveTranscript,
      participants: () => this.roster.everSeen,
      signedInAs: () => this.account?.name ?? null,
      onSaved: (saved) => this.stream.emit('document_saved', saved),
    });
    this.recorder =
      spec.recording === 'audio'
        ? new Recorder({
            bus: deps.bus,
            logger: log,
            meetingId: spec.meetingId,
            onWarning: (raised, detail) => this.mailbox.post(() => this.onRecordingWarning(raised, detail)),
          })
        : null;
  }

  /** Subscribes the actor's command subject, emits `joining` and sets the bot off. */
  start(): void {
    this.stopSub = this.deps.bus.serve(subjects.actorStop(this.meetingId), () => this.onStopCommand());
    this.stream.emit('meeting_status', { status: 'joining', previousStatus: null, reason: null });
    this.timers.started();
    this.mailbox.post(() => this.launchDriver());
  }

  /**
   * The worker is going away (stopped, scaled in, drained) and its grace is over: the bot leaves as
   * on a stop, final flush, `ended` / `worker_shutdown`. Not an error: nothing failed, and the
   * document is whole up to the bot's leaving (`worker_lost` is for a worker that vanished).
   */
  shutdown(): void {
    this.mailbox.post(() => this.finish('ended', 'worker_shutdown'));
  }

  /** The meeting is no longer ours (fenced by the registry): release the bot, write nothing more. */
  abandon(why: string): void {
    if (this.phase === 'closed') return;
    this.deps.logger.warn({ meetingId: this.meetingId, why }, 'actor abandons its meeting');
    this.phase = 'closed';
    this.deps.seat.leaving();
    this.stream.stop();
    this.timers.clear();
    this.flusher.stop();
    void this.releaseDriver().finally(() => this.exit());
  }

  private isClosed(): boolean {
    return this.phase === 'closed';
  }

  private state(): ActorState {
    return {
      status: this.status,
      participantCount: this.roster.count,
      segmentCount: this.segmentCount,
      participants: [...this.roster.everSeen],
      recording: this.recorder?.info() ?? null,
    };
  }

  private onStopCommand(): { meetingId: string; status: 'stopping' } {
    if (this.phase === 'running') {
      // Counted now, not when the mailbox gets to it: a start arriving meanwhile waits for this seat.
      this.deps.seat.leaving();
      this.mailbox.post(() => this.finish('ended', 'stopped'));
    }
    return { meetingId: this.meetingId, status: 'stopping' };
  }

  private async launchDriver(): Promise<void> {
    if (this.phase !== 'running') return;
    let factory: DriverFactory;
    try {
      factory = await this.deps.driverFactory();
    } catch (err) {
      this.deps.logger.error({ err, meetingId: this.meetingId }, 'no browser for the meeting');
      return this.finish('error', 'browser_unavailable');
    }
    try {
      this.driver = factory.create({
        platform: this.spec.platform,
        url: this.spec.joinUrl,
        meetingId: this.meetingId,
        displayName: this.deps.displayName,
        language: this.spec.language,
        account: this.account && { name: this.account.name, session: this.account.session },
        recordAudio: this.recorder !== null,
      });
      await this.driver.start(this.listener());
    } catch (err) {
      const reason = driverFailureOf(err) ?? 'join_failed';
      this.deps.logger.error({ err, meetingId: this.meetingId, reason }, 'the bot could not start');
      return this.finish('error', reason);
    }
  }

  /** Driver callbacks become mailbox messages; after the actor closed they are ignored. */
  private listener(): DriverListener {
    const post = (handler: () => void | Promise<void>) => {
      if (this.phase !== 'closed') this.mailbox.post(handler);
    };
    return {
      lobby: () => post(() => this.onLobby()),
      admitted: () => post(() => this.onAdmitted()),
      caption: (update) => post(() => this.onCaption(update)),
      segment: (segment) => post(() => this.onSegment(segment)),
      participants: (names) => post(() => this.onParticipants([...names])),
      ended: (reason) => post(() => this.finish('ended', reason)),
      warning: (change) => post(() => this.deps.captionWarnings.changed(this.meetingId, this.spec.platform, change)),
      signedIn: (identity) => post(() => this.onSignedIn(identity)),
      // Audio skips the mailbox: a batch changes no state the mailbox guards, and must not wait behind a flush.
      audio: (batch) => {
        if (this.phase !== 'closed') this.recorder?.add(batch);
      },
      audioFailed: (detail) => this.recorder?.failed(`the page cannot capture audio: ${detail}`),
      failed: (reason, detail) => post(() => this.onFailed(reason, detail)),
    };
  }

  /**
   * A refused guest joins again at once with a bot account (`signIn: auto`); a signed-out account
   * makes way for the next one. Each account is tried once per meeting, so this ends.
   */
  private async onFailed(reason: DriverFailure, detail?: string): Promise<void> {
    if (this.phase !== 'running') return;
    const log = { meetingId: this.meetingId, reason, detail, signedInAs: this.account?.name };
    this.deps.logger.warn(log, 'the bot failed');
    const retry = reason === 'signed_out' || (reason === 'guest_refused' && this.spec.signIn === 'auto');
    if (!retry) return this.finish('error', reason === 'guest_refused' ? 'sign_in_required' : reason);
    await this.leaveDriver();
    let reply: AccountReply;
    try {
      reply = await this.deps.nextAccount(reason === 'signed_out' ? (this.account?.id ?? null) : null);
    } catch (err) {
      this.deps.logger.error({ err, meetingId: this.meetingId }, 'no bot account could be asked for');
      reply = { account: null, reason: reason === 'signed_out' ? 'bot_account_signed_out' : 'sign_in_required' };
    }
    if (this.phase !== 'running') return;
    this.account = reply.account;
    if (!reply.account) return this.finish('error', reply.reason ?? 'sign_in_required');
    await this.launchDriver();
  }

  /** The platform showed who the bot is signed in as: kept on the account for the operator. */
  private onSignedIn(identity: string): void {
    const accountId = this.account?.id;
    if (!accountId) return;
    this.deps.logger.info({ meetingId: this.meetingId, signedInAs: this.account?.name }, 'the bot is signed in');
    call(this.deps.bus, routes.identity.botAccountReport, { accountId, identity: identity.slice(0, 200) }).catch(
      (err: unknown) => this.deps.logger.warn({ err, meetingId: this.meetingId }, 'could not report the identity seen'),
    );
  }

  private onLobby(): void {
    if (this.phase !== 'running' || this.status !== 'joining') return;
    this.timers.inLobby();
    this.transition('lobby', null);
  }

  private onAdmitted(): void {
    if (this.phase !== 'running' || (this.status !== 'joining' && this.status !== 'lobby')) return;
    this.recorder?.start();
    this.transition('live', null);
    this.timers.admitted(this.roster.count);
    this.flusher.startPeriodic(this.deps.config.flushIntervalMs);
  }

  private onCaption(update: CaptionUpdate): void {
    if (this.phase === 'closed') return;
    this.stream.emit('caption_partial', {
      speaker: update.speaker,
      text: update.text,
      captionId: update.captionId,
      timestamp: update.timestamp,
    });
  }

  /** Stored through transcript-store first: a published segment is always a stored one. */
  private async onSegment(segment: FinalSegment): Promise<void> {
    if (this.phase === 'closed') return;
    const index = this.segmentCount;
    const stored = await storeSegment(
      this.deps.bus,
      this.deps.logger,
      { meetingId: this.meetingId, index, segment },
      () => !this.isClosed(),
    );
    // The actor may have been closed (fenced) while the append was retried.
    if (!stored || this.isClosed()) return;
    this.segmentCount = index + 1;
    this.flusher.markDirty();
    this.stream.emit('segment_finalized', {
      speaker: segment.speaker,
      text: segment.text,
      timestamp: segment.timestamp,
    });
    this.emitInsights(this.coach.observe(index, segment));
  }

  /**
   * The recording cannot be stored (or captured): the meeting goes on. The record and the log say
   * so (caption-warnings.ts), and the stream: a meeting_status event with the same status and a
   * `warning` (docs/services/meeting-session.md).
   */
  private async onRecordingWarning(raised: boolean, detail: string): Promise<void> {
    if (this.phase === 'closed') return;
    const change = raised
      ? { warning: 'recording_unavailable' as const, raised, seen: detail, snapshot: [] }
      : { warning: 'recording_unavailable' as const, raised };
    if (raised) {
      this.stream.emit('meeting_status', {
        status: this.status,
        previousStatus: this.status,
        reason: null,
        warning: 'recording_unavailable',
      });
    }
    await this.deps.captionWarnings.changed(this.meetingId, this.spec.platform, change);
  }

  private emitInsights(insights: InsightPayload[]): void {
    if (this.phase === 'closed') return;
    for (const insight of insights) this.stream.emit('coach_insight', { ...insight });
  }

  private onParticipants(names: string[]): void {
    if (this.phase === 'closed') return;
    const change = this.roster.update(names);
    // Counts step one by one, so each event's count is the count right after that change.
    let count = this.roster.count - change.joined.length + change.left.length;
    const timestamp = new Date().toISOString();
    for (const name of change.left)
      this.stream.emit('participant_left', { name, participantCount: --count, timestamp });
    for (const name of change.joined)
      this.stream.emit('participant_joined', { name, participantCount: ++count, timestamp });
    if (this.status === 'live' && this.phase === 'running') this.timers.participants(this.roster.count);
  }

  private onTimer(why: 'alone' | 'max_duration' | 'lobby_timeout' | 'join_timeout'): Promise<void> {
    if (why === 'alone' || why === 'max_duration') return this.finish('ended', why);
    return this.finish('error', why === 'lobby_timeout' ? 'lobby_timeout' : 'join_failed');
  }

  /**
   * The way out. Ended: `leaving`, the bot leaves (its last words still arrive as segments), final
   * flush, `document_saved`, `ended`. Error: the bot's browser is released, final flush,
   * `document_saved`, `error`. Runs inside the mailbox; the tail runs as a new message so the
   * callbacks the driver made while leaving are handled before it.
   */
  private async finish(kind: 'ended', reason: EndReason): Promise<void>;
  private async finish(kind: 'error', reason: ErrorReason): Promise<void>;
  private async finish(kind: 'ended' | 'error', reason: EndReason | ErrorReason): Promise<void> {
    if (this.phase !== 'running') return;
    this.phase = 'leaving';
    this.leftAt = Date.now();
    this.deps.seat.leaving();
    this.timers.clear();
    if (kind === 'ended') this.transition('leaving', reason);
    await this.releaseDriver();
    this.mailbox.post(() => this.complete(kind, reason));
  }

  private async complete(kind: 'ended' | 'error', reason: string): Promise<void> {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    // The file is complete before the document is, so the document links the finished recording.
    const saved = await this.recorder?.finish(this.leftAt);
    if (saved) this.stream.emit('recording_saved', recordingSavedPayload(saved));
    await this.flusher.finalFlush();
    this.transition(kind, reason);
    await this.stream.drained();
    this.exit();
  }

  private transition(to: MeetingStatus, reason: string | null): void {
    const previousStatus = this.status;
    this.status = to;
    // Signed in, every status says as whom (a guest's payload is the SPEC's three fields).
    const signedIn = this.account ? { signedInAs: this.account.name } : {};
    this.stream.emit('meeting_status', { status: to, previousStatus, reason, ...signedIn });
  }

  private async releaseDriver(): Promise<void> {
    await this.leaveDriver();
    this.deps.seat.released();
  }

  private async leaveDriver(): Promise<void> {
    const driver = this.driver;
    this.driver = null;
    if (driver) await leaveWithin(driver, this.deps.logger, this.meetingId);
  }

  private exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.coach.stop();
    this.timers.clear();
    this.flusher.stop();
    void this.stopSub?.unsubscribe();
    this.deps.onExit(this.meetingId);
  }
}
