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
  type MeetingWarning,
  type Platform,
  type TranscriptSegment,
  type TranscriptSource,
} from '@notetaker/contracts';
import { randomBytes } from 'node:crypto';
import { call, type Bus, type Subscription } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type {
  CaptionUpdate,
  DriverFactory,
  DriverListener,
  FinalSegment,
  JoinProgress,
  MeetingDriver,
  PageEvidence,
} from '../drivers/driver.js';
import type { MeetingSessionConfig } from '../config.js';
import { subjects, type AccountReply, type ActorState, type PlaceRequest } from '../protocol.js';
import type { Coaching, InsightPayload, MeetingCoach } from './coaching.js';
import { DocumentFlusher } from './document-flusher.js';
import { EventStream, type Outbox } from './event-stream.js';
import { Mailbox } from './mailbox.js';
import { BotNames } from './bot-names.js';
import { Roster } from './participants.js';
import { AutoLeave } from './auto-leave.js';
import { driverFailureOf, leaveWithin, storeSegment } from './side-effects.js';
import type { CaptionWarnings } from '../worker/caption-warnings.js';
import { Recorder } from '../recording/recorder.js';
import type { RecordingSpools } from '../recording/spools.js';
import type { SpeechToText, Trouble } from '../transcription/audio-transcriber.js';
import { MeetingTranscription } from '../transcription/meeting-transcription.js';
import { MeetingChat } from './meeting-chat.js';
import { actorChatReply, actorChatRequest, actorChatSubject } from '../chat-protocol.js';
import type { SourceSwitch } from '../transcription/source-choice.js';
import { ActorSpeech } from '../speech/actor-speech.js';
import type { Synthesizer } from '../speech/text-to-speech.js';

/** The worker's speech engine, shared by its meetings (null: no STT_BASE_URL, captions only). */
export interface SpeechDeps {
  engine: SpeechToText;
  budgetSeconds: number;
  /** Metrics: a word's wait for its partial or final; a change of source. */
  lag?(kind: 'partial' | 'final', seconds: number): void;
  switched?(source: TranscriptSource): void;
  /** A segment from audio said by "Unknown" (no tile changed while it was said). */
  unknownSpeaker?(platform: Platform): void;
}

export interface ActorDeps {
  bus: Bus;
  logger: Logger;
  config: MeetingSessionConfig;
  displayName: string;
  /** The worker's driver factory (created on first use; failing means no browser). */
  driverFactory: () => Promise<DriverFactory>;
  /** Where the bot's caption warnings go (log, record, metrics, snapshot). */
  captionWarnings: Pick<CaptionWarnings, 'changed' | 'failedAtWall'>;
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
  speech: SpeechDeps | null;
  /** The worker's recording spool, which sends each meeting's audio to storage. */
  recordings: RecordingSpools;
  /** The worker's speech output engine (null or absent: no TTS_BASE_URL, audio only). */
  textToSpeech?: Synthesizer | null;
}

/**
 * How long the end waits for the recording to be finished in storage: the usual case (storage
 * keeping up) still says `recording_saved` before `ended`; storage behind does not hold the end,
 * and the registry appends `recording_saved` once the worker's spool drained.
 */
const RECORDING_WAIT_MS = 2_000;

/** running: normal; leaving: the bot is on its way out (late segments still count); closed: done. */
type Phase = 'running' | 'leaving' | 'closed';

export class MeetingActor {
  readonly meetingId: string;
  private status: MeetingStatus = 'joining';
  private phase: Phase = 'running';
  private driver: MeetingDriver | null = null;
  /** Joining: the screen the driver last said the bot is on, and what the join timeout means there. */
  private joinSeen: JoinProgress | null = null;
  private readonly mailbox: Mailbox;
  private readonly stream: EventStream;
  private readonly roster: Roster;
  private readonly coach: MeetingCoach;
  private readonly timers: AutoLeave;
  private readonly flusher: DocumentFlusher;
  /** The meeting's audio, when the start asked for it. */
  private readonly recorder: Recorder | null;
  /** Transcription from the meeting's audio, when the start allows it and the worker has an engine. */
  private readonly transcription: MeetingTranscription | null;
  private segmentCount = 0;
  /** When the bot set off to leave: the recording's timeline ends there. */
  private leftAt = 0;
  /** The bot account the bot joins with now (null: a guest). */
  private account: PlaceRequest['account'];
  private stopSub: Subscription | null = null;
  private exited = false;
  /** The meeting's chat, read and written (meeting-chat.ts). */
  private readonly chat: MeetingChat;
  private chatSub: Subscription | null = null;
  /** What the bot is asked to say (speech/actor-speech.ts). */
  private readonly speaking: ActorSpeech;

  constructor(
    private readonly deps: ActorDeps,
    private readonly spec: PlaceRequest,
  ) {
    this.meetingId = spec.meetingId;
    this.account = spec.account;
    const botNames = new BotNames(deps.config.botNamePatterns, deps.displayName);
    this.roster = new Roster((name) => botNames.isBot(name));
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
            logger: log,
            meetingId: spec.meetingId,
            spools: deps.recordings,
            onWarning: (warning, raised, detail) => this.mailbox.post(() => this.onWarning(warning, raised, detail)),
          })
        : null;
    this.transcription = this.createTranscription(log);
    this.chat = new MeetingChat({
      bus: deps.bus,
      logger: log,
      meetingId: spec.meetingId,
      emit: (message) => this.stream.emit('chat_message', { ...message }),
      failed: (failure) => this.mailbox.post(() => this.emitStatusWarning({ warning: 'chat_failed', failure })),
      driver: () => (this.status === 'live' && this.phase === 'running' ? this.driver : null),
      stored: () => this.flusher.markDirty(),
    });
    this.speaking = new ActorSpeech({
      bus: deps.bus,
      logger: log,
      meetingId: spec.meetingId,
      displayName: deps.displayName,
      synthesizer: deps.textToSpeech ?? null,
      voice: () => this.driver?.voice?.() ?? null,
      isLive: () => this.phase === 'running' && this.status === 'live',
      emit: (type, payload) => {
        if (this.phase !== 'closed') this.stream.emit(type, payload);
      },
      segment: (segment) => this.mailbox.post(() => this.onSegment(segment)),
    });
  }

  private createTranscription(log: Logger): MeetingTranscription | null {
    const speech = this.deps.speech;
    if (!speech || this.spec.transcription === 'captions') return null;
    return new MeetingTranscription({
      mode: this.spec.transcription,
      engine: speech.engine,
      budgetSeconds: speech.budgetSeconds,
      language: this.spec.language,
      idPrefix: `aud_${randomBytes(4).toString('hex')}`,
      lag: speech.lag,
      unknownSpeaker: () => speech.unknownSpeaker?.(this.spec.platform),
      partial: (partial) => this.mailbox.post(() => this.emitPartial({ ...partial, source: 'audio' })),
      // Resolved once stored and emitted, so that finals keep their order.
      final: (final) =>
        new Promise<void>((resolve) =>
          this.mailbox.post(() => this.onSegment({ ...final, source: 'audio' }).finally(resolve)),
        ),
      trouble: (trouble: Trouble, raised, detail) => this.mailbox.post(() => this.onWarning(trouble, raised, detail)),
      switched: (change) => this.mailbox.post(() => this.onSourceSwitched(change, log)),
    });
  }

  /** Subscribes the actor's command subject, emits `joining` and sets the bot off. */
  start(): void {
    this.stopSub = this.deps.bus.serve(subjects.actorStop(this.meetingId), () => this.onStopCommand());
    this.chatSub = this.deps.bus.serve(actorChatSubject(this.meetingId), (data) => this.onChatCommand(data));
    this.speaking.serve();
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
    this.speaking.close();
    this.deps.seat.leaving();
    this.stream.stop();
    this.timers.clear();
    this.flusher.stop();
    void this.transcription?.finish();
    // What was spooled is still sent and the file finished; the registry hears of it.
    void this.recorder?.finish(Date.now(), 0);
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
      transcriptionSource: this.transcription ? this.transcription.source : this.status === 'live' ? 'captions' : null,
      unknownSpeakerSegments: this.transcription?.unknownSpeakers ?? 0,
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

  /** send_chat_message, checked by the registry: queued while the bot is in the call. */
  private onChatCommand(data: unknown) {
    const { text } = actorChatRequest.parse(data);
    if (this.status !== 'live' || this.phase !== 'running') return actorChatReply.parse({ status: 'not_live' });
    this.chat.send(text);
    return actorChatReply.parse({ status: 'queued' });
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
      this.joinSeen = null;
      this.driver = factory.create({
        platform: this.spec.platform,
        url: this.spec.joinUrl,
        meetingId: this.meetingId,
        displayName: this.deps.displayName,
        language: this.spec.language,
        passcode: this.spec.passcode,
        account: this.account && { name: this.account.name, storageState: this.account.session },
        recordAudio: this.recorder !== null,
        transcribeAudio: this.transcription !== null,
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
      segment: (segment) => post(() => this.onCaptionSegment(segment)),
      participants: (names) => post(() => this.onParticipants([...names])),
      ended: (reason) => post(() => this.finish('ended', reason)),
      warning: (change) => {
        this.transcription?.warning(change.warning, change.raised);
        post(() => {
          // Joining on a screen the bot does not know: said on the stream too, as the other warnings of a meeting are.
          if (change.warning === 'join_screen_unknown' && change.raised)
            this.emitStatusWarning({ warning: change.warning });
          return this.deps.captionWarnings.changed(this.meetingId, this.spec.platform, change);
        });
      },
      signedIn: (identity) => post(() => this.onSignedIn(identity)),
      // Audio skips the mailbox: a batch changes no state the mailbox guards, and must not wait behind a flush.
      audio: (batch) => {
        if (this.phase !== 'closed') this.recorder?.add(batch);
      },
      audioFailed: (detail) => this.recorder?.failed(`the page cannot record audio: ${detail}`),
      audioSkipped: (skip) => {
        this.deps.logger.warn(
          { meetingId: this.meetingId, ...skip },
          'audio the page recorded could not be read: skipped',
        );
        this.recorder?.noteGap('unreadable_audio', skip.fromEpochMs, skip.toEpochMs);
      },
      // Like audio: the transcriber keeps its own order, and the mailbox must not delay the timeline.
      pcm: (chunk) => this.transcription?.pcm(chunk),
      pcmFailed: (detail) => {
        if (this.transcription)
          post(() =>
            this.onWarning('transcription_unavailable', detail !== null, `the page cannot tap audio: ${detail}`),
          );
      },
      looks: (tiles, at) => this.transcription?.looks(tiles, at),
      captionsOn: (on) => this.transcription?.captionsOn(on, Date.now()),
      failed: (reason, detail, evidence) => post(() => this.onFailed(reason, detail, evidence)),
      joinProgress: (progress) =>
        post(() => {
          this.joinSeen = progress;
        }),
      // Straight to the stream, in the driver's order: a message changes no state the mailbox guards.
      chat: (message) => {
        if (this.phase !== 'closed') this.chat.received(message);
      },
    };
  }

  /**
   * A refused guest joins again at once with a bot account (`signIn: auto`); a signed-out account
   * makes way for the next one. Each account is tried once per meeting, so this ends.
   */
  private async onFailed(reason: DriverFailure, detail?: string, evidence?: PageEvidence): Promise<void> {
    if (this.phase !== 'running') return;
    const log = { meetingId: this.meetingId, reason, detail, signedInAs: this.account?.name };
    if (evidence) await this.deps.captionWarnings.failedAtWall(log, this.spec.platform, evidence);
    else this.deps.logger.warn(log, 'the bot failed');
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
    this.transcription?.admitted(Date.now());
    this.transition('live', null);
    const announcement = this.spec.announcement ?? this.deps.config.announcement;
    if (announcement) this.chat.send(announcement);
    this.timers.admitted(this.roster.people);
    this.flusher.startPeriodic(this.deps.config.flushIntervalMs);
  }

  /** A caption counts unless the audio is the source now, or already gave its words (a seam). */
  private captionCounts(turn: { captionId?: string; timestamp: string }): boolean {
    return this.transcription?.captionCounts({ ...turn, startedAt: Date.parse(turn.timestamp) }, Date.now()) ?? true;
  }

  private onCaption(update: CaptionUpdate): void {
    // The captions say who speaks now: whose track carries voice (speaker-learner.ts).
    this.transcription?.captioned(update.speaker, Date.now());
    if (this.phase === 'closed' || !this.captionCounts(update) || this.speaking.isOwnCaption(update.speaker)) return;
    this.emitPartial({ ...update, source: 'captions' });
  }

  private emitPartial(
    partial: Pick<CaptionUpdate, 'speaker' | 'text' | 'captionId' | 'timestamp'> & {
      source: TranscriptSource;
      stableText?: string;
    },
  ): void {
    if (this.phase === 'closed') return;
    const { speaker, text, captionId, timestamp, source, stableText } = partial;
    const stable = stableText === undefined ? {} : { stableText };
    this.stream.emit('caption_partial', { speaker, text, captionId, timestamp, source, ...stable });
  }

  private onCaptionSegment(segment: FinalSegment): Promise<void> {
    if (!this.captionCounts(segment) || this.speaking.isOwnCaption(segment.speaker)) return Promise.resolve();
    return this.onSegment({ ...segment, source: 'captions' });
  }

  /** Stored through transcript-store first: a published segment is always a stored one. */
  private async onSegment(segment: TranscriptSegment): Promise<void> {
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
    const { speaker, text, timestamp, source, untranscribed } = segment;
    this.stream.emit('segment_finalized', {
      speaker,
      text,
      timestamp,
      source,
      ...(untranscribed ? { untranscribed } : {}),
    });
    if (!untranscribed) this.emitInsights(this.coach.observe(index, segment));
  }

  /**
   * The recording cannot be stored (or captured), or the speech engine does not answer: the
   * meeting goes on. The record and the log say so (caption-warnings.ts), and the stream: a
   * meeting_status event with the same status and a `warning` (docs/services/meeting-session.md).
   */
  private async onWarning(warning: MeetingWarning, raised: boolean, detail: string): Promise<void> {
    if (this.phase === 'closed') return;
    const change = raised ? { warning, raised, seen: detail, snapshot: [] } : { warning, raised };
    if (raised) this.emitStatusWarning({ warning });
    await this.deps.captionWarnings.changed(this.meetingId, this.spec.platform, change);
  }

  /** `auto`: the words now come from the other source; said once, on the stream and in the log. */
  private onSourceSwitched(change: SourceSwitch, log: Logger): void {
    if (this.phase === 'closed') return;
    log.info({ source: change.source, why: change.why }, `the transcript now comes from the ${change.source}`);
    this.deps.speech?.switched?.(change.source);
    this.emitStatusWarning({ warning: 'transcription_source_changed', source: change.source });
  }

  /** A meeting_status event that changes no status: it carries a warning. */
  private emitStatusWarning(fields: { warning: string; source?: TranscriptSource; failure?: string }): void {
    this.stream.emit('meeting_status', { status: this.status, previousStatus: this.status, reason: null, ...fields });
  }

  private emitInsights(insights: InsightPayload[]): void {
    if (this.phase === 'closed') return;
    for (const insight of insights) this.stream.emit('coach_insight', { ...insight });
  }

  /**
   * Each event says whether its participant is a bot (`bot`) and which bots are in the meeting
   * right after it (`bots`); the count counts everybody but this bot. Only people keep the bot in
   * the meeting: with nobody but bots it is alone.
   */
  private onParticipants(names: string[]): void {
    if (this.phase === 'closed') return;
    const bots = this.roster.bots;
    const change = this.roster.update(names);
    // Counts and bots step one by one, so each event's are those right after that change.
    let count = this.roster.count - change.joined.length + change.left.length;
    const timestamp = new Date().toISOString();
    const emit = (type: 'participant_joined' | 'participant_left', name: string) => {
      const bot = this.roster.isBot(name);
      if (bot && type === 'participant_joined') bots.push(name);
      if (bot && type === 'participant_left') bots.splice(bots.indexOf(name), 1);
      count += type === 'participant_joined' ? 1 : -1;
      this.stream.emit(type, { name, participantCount: count, timestamp, bot, bots: [...bots] });
    };
    for (const name of change.left) emit('participant_left', name);
    for (const name of change.joined) emit('participant_joined', name);
    if (this.status === 'live' && this.phase === 'running') this.timers.participants(this.roster.people);
  }

  private onTimer(why: 'alone' | 'max_duration' | 'lobby_timeout' | 'join_timeout'): Promise<void> {
    if (why === 'alone' || why === 'max_duration') return this.finish('ended', why);
    if (why === 'lobby_timeout') return this.finish('error', 'lobby_timeout');
    // What the timeout means on the screen the bot is stuck on is the driver's to say (joinProgress).
    const reason = this.joinSeen?.onTimeout ?? 'join_failed';
    const seen = this.joinSeen?.seen ?? 'no screen yet';
    this.deps.logger.warn(
      { meetingId: this.meetingId, reason, detail: `still on ${seen} after ${this.deps.config.joinTimeoutMs} ms` },
      'the bot failed',
    );
    return this.finish('error', reason);
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
    this.speaking.close();
    this.leftAt = Date.now();
    this.deps.seat.leaving();
    this.timers.clear();
    if (kind === 'ended') this.transition('leaving', reason);
    await this.releaseDriver();
    // The last utterances' finals are still mailbox messages to come: complete after them.
    const transcribed = this.transcription?.finish() ?? Promise.resolve();
    void transcribed.then(() => this.mailbox.post(() => this.complete(kind, reason)));
  }

  private async complete(kind: 'ended' | 'error', reason: string): Promise<void> {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    // The file is complete before the document is (when storage keeps up), so the document links the finished recording.
    const saved = await this.recorder?.finish(this.leftAt, RECORDING_WAIT_MS);
    if (saved === 'later')
      this.deps.logger.info(
        { meetingId: this.meetingId, pendingBytes: this.recorder?.info()?.pendingBytes },
        'the meeting ends before its recording is stored: recording_saved comes once storage has taken it',
      );
    else if (saved) this.stream.emit('recording_saved', recordingSavedPayload(saved));
    this.chat.stop();
    await this.chat.drained();
    await this.flusher.finalFlush();
    this.transition(kind, reason);
    await this.stream.drained();
    this.exit();
  }

  private transition(to: MeetingStatus, reason: string | null): void {
    const previousStatus = this.status;
    this.status = to;
    // Signed in, every status says as whom (a guest's payload is status, previousStatus and reason alone).
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
    this.speaking.close();
    this.coach.stop();
    this.timers.clear();
    this.flusher.stop();
    void this.stopSub?.unsubscribe();
    void this.chatSub?.unsubscribe();
    this.chat.stop();
    this.deps.onExit(this.meetingId);
  }
}
