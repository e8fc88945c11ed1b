/**
 * One simulated meeting, addressed by its native id (a Meet code, a Teams thread id or a teams.live
 * number). Tests script it in process; the control API maps HTTP calls onto the same methods. It
 * pushes each connected bot page the whole view it should show, and records the ground truth.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { CaptionBoard, growWords } from './captions.js';
import { CaptionTurn } from './turn.js';
import { audioOf, choiceOf, selfTileOf } from './pages/platforms.js';
import { audioUrl, synthesize, VOICES, voiceLabel, type Voice } from './speech.js';
import {
  defaultMeetingOptions,
  type AudioEvent,
  type BotRecord,
  type BotScreen,
  type GroundTruth,
  type GuestView,
  type MeetingOptions,
  type NameSuffix,
  type PageLoad,
  type ParticipantRecord,
  type SimPlatform,
  type TerminalScreen,
  type Utterance,
  type UtterancePlay,
} from './types.js';

type ViewSink = (view: GuestView) => void;

const now = () => new Date().toISOString();

/** How far ahead say() schedules the sound: pages fetch and decode it, and may add a track, first. */
export const SPEECH_LEAD_MS = 500;

export interface SayOptions {
  /**
   * Show the words as captions too, growing in step with the audio (default: the meeting's
   * captionsFromSpeech; never when captionsAvailable is false, nor while captions are not allowed).
   */
  captions?: boolean;
  /** An espeak-ng voice for this speaker from now on (default: the next of VOICES for a new speaker). */
  voice?: Voice;
  /** Heard, but no tile shows it (a caller whose tile is off the page): no speaking indicator lights. */
  unseen?: boolean;
}

export class SimMeeting {
  options: MeetingOptions;
  readonly space = randomBytes(6).toString('hex');
  private readonly bots = new Map<string, BotRecord>();
  private readonly sinks = new Map<string, ViewSink>();
  private readonly people: ParticipantRecord[] = [];
  private readonly pageLoads: PageLoad[] = [];
  private readonly events = new EventEmitter();
  private readonly board: CaptionBoard;
  private endedAt: string | null = null;
  private readonly utterances: Utterance[] = [];
  private readonly audioEvents: AudioEvent[] = [];
  private readonly voices = new Map<string, Voice>();

  constructor(
    readonly id: string,
    options: Partial<MeetingOptions> = {},
  ) {
    this.options = { ...defaultMeetingOptions, ...options };
    this.events.setMaxListeners(0);
    this.board = new CaptionBoard(
      () => ({ maxBlocks: this.options.maxBlocks, headDropWords: this.options.headDropWords }),
      () => this.broadcast(),
    );
  }

  configure(options: Partial<MeetingOptions>): this {
    this.options = { ...this.options, ...options };
    this.events.emit('configured');
    return this;
  }

  /** Resolves once a join request may be answered (MeetingOptions.joinHangs false). */
  async joinAnswered(): Promise<void> {
    while (this.options.joinHangs) await new Promise((resolve) => this.events.once('configured', resolve));
  }

  // ---- scripting

  /** Lets every bot waiting in the lobby in. */
  admit(): void {
    this.forBots('lobby', (bot) => {
      bot.screen = 'in_call';
      bot.admittedAt = now();
    });
  }

  deny(): void {
    this.forBots('lobby', (bot) => this.terminate(bot, 'denied'));
  }

  /** The platform gives up on a request nobody answered. */
  noAnswer(): void {
    this.forBots('lobby', (bot) => this.terminate(bot, 'no_response'));
  }

  removeBot(): void {
    this.forBots('in_call', (bot) => this.terminate(bot, 'removed'));
  }

  /** Zoom: the host starts the meeting; bots waiting for that ask to join (the waiting room, or in). */
  start(): void {
    this.configure({ started: true });
    this.broadcast();
  }

  /** The host ends the meeting for everyone. */
  end(): void {
    this.endedAt = now();
    for (const p of this.people) p.leftAt ??= this.endedAt;
    this.forBots('lobby', (bot) => this.terminate(bot, 'ended'));
    this.forBots('in_call', (bot) => this.terminate(bot, 'ended'));
  }

  /** Someone joins; on Teams `suffix` labels them "(Guest)", "(External)" or "(Unverified)". */
  join(name: string, options: { suffix?: NameSuffix | null } = {}): string {
    const id = String(this.people.length + 100);
    this.people.push({ id, name, suffix: options.suffix ?? null, presenting: false, joinedAt: now(), leftAt: null });
    this.broadcast();
    return id;
  }

  /** Someone starts or stops presenting (Meet shows a second tile, "<name> (Presentation)"). */
  present(nameOrId: string, on = true): void {
    this.person(nameOrId).presenting = on;
    this.broadcast();
  }

  leave(nameOrId: string): void {
    const person = this.person(nameOrId);
    person.leftAt = now();
    person.presenting = false;
    this.broadcast();
  }

  /**
   * The host (Meet) or organizer (Teams) turns captions off for the meeting, or back on. Off: every
   * page shows its captions control disabled or not at all (as its seed drew), captions on are
   * switched off (the caption area goes, its blocks with it), and speech makes no captions, also
   * the rest of an utterance under way. On again: the control comes back; captions stay off until
   * a participant turns them on, and only what is said from then on shows. Caption turns scripted
   * meanwhile (caption(), speak()) still go into the truth, but no page shows them.
   */
  setCaptionsAllowed(allowed: boolean): void {
    if (allowed === this.options.captionsAllowed) return;
    this.options = { ...this.options, captionsAllowed: allowed };
    if (!allowed) this.board.clear();
    this.broadcast();
  }

  /** Starts a caption turn: a new block (Meet) or row (Teams) for the speaker. */
  caption(speaker: string): CaptionTurn {
    return new CaptionTurn(this.board, this.board.create(speaker));
  }

  /** A caption turn played step by step: each step is the full text shown at that moment. */
  async speak(speaker: string, steps: string[], stepMs = 60): Promise<CaptionTurn> {
    return this.caption(speaker).play(steps, stepMs);
  }

  turn(blockId: number): CaptionTurn {
    return new CaptionTurn(this.board, blockId);
  }

  /**
   * `speaker` says `text` aloud: espeak-ng speaks it in the speaker's own voice, and the media
   * server plays it to every bot page in the call now, over the call's WebRTC audio
   * (media/audio.ts), starting SPEECH_LEAD_MS from now; by default the words also appear as a
   * caption turn, word by word over the speech.
   * Bots not in the call now never hear it (the truth records it all the same). Resolves with the
   * utterance once it has been spoken (its window: startedAt to startedAt + durationMs, epoch ms);
   * without awaiting, speakers overlap.
   */
  async say(speaker: string, text: string, options: SayOptions = {}): Promise<Utterance> {
    const voice = options.voice ?? this.voices.get(speaker) ?? VOICES[this.voices.size % VOICES.length];
    this.voices.set(speaker, voice);
    const speech = await synthesize(voice, text);
    const captions =
      (options.captions ?? this.options.captionsFromSpeech) &&
      this.options.captionsAvailable &&
      this.options.captionsAllowed;
    const turn = captions ? this.caption(speaker) : null;
    const utterance: Utterance = {
      id: `${this.utterances.length + 1}-${speech.id}`,
      speaker,
      text,
      voice: voiceLabel(voice),
      startedAt: Date.now() + SPEECH_LEAD_MS,
      durationMs: speech.durationMs,
      audience: [...this.bots.values()].filter((b) => b.screen === 'in_call').map((b) => b.guestId),
      plays: [],
      captionBlockId: turn?.blockId ?? null,
      audioUrl: audioUrl(speech.id),
      ...(options.unseen ? { unseen: true } : {}),
    };
    this.utterances.push(utterance);
    this.broadcast();
    this.events.emit('utterance', utterance);
    const steps = turn ? growWords(text) : [];
    // Each word appears as it ends: the words spread evenly over the speech; none once the host
    // turned captions off.
    const timers = steps.map((step, i) =>
      delayUntil(utterance.startedAt + (utterance.durationMs * (i + 1)) / steps.length).then(() => {
        if (this.options.captionsAllowed) turn!.show(step);
      }),
    );
    await Promise.all([...timers, delayUntil(utterance.startedAt + utterance.durationMs)]);
    return copyUtterance(utterance);
  }

  // ---- observation

  /**
   * The caption blocks on screen now, speaker and displayed text (without the words a long Meet
   * turn dropped), oldest first: what a reader should read. Teams shows the last `visibleRows`.
   */
  captionsOnScreen(platform: SimPlatform): Array<{ speaker: string; text: string }> {
    const shown = this.board.visible().map(({ speaker, text }) => ({ speaker, text }));
    // Teams' list and Zoom's caption overlay show the last few lines only.
    return platform === 'google_meet' ? shown : shown.slice(-this.options.visibleRows);
  }

  truth(): GroundTruth {
    return {
      meetingId: this.id,
      segments: this.board.truth(),
      utterances: this.utterances.map(copyUtterance),
      audioEvents: this.audioEvents.map((e) => ({ ...e })),
      participants: this.people.map((p) => ({ ...p })),
      bots: [...this.bots.values()].map((b) => ({ ...b })),
      pageLoads: [...this.pageLoads],
      endedAt: this.endedAt,
    };
  }

  /** Resolves with the first bot that satisfies `test` (bots in join order). */
  waitForBot(test: (bot: BotRecord) => boolean, timeoutMs = 20_000): Promise<BotRecord> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const bot = [...this.bots.values()].find(test);
        if (!bot) return false;
        cleanup();
        resolve({ ...bot });
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`meeting ${this.id}: no bot reached the awaited state in ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.events.off('change', check);
      };
      if (!check()) this.events.on('change', check);
    });
  }

  // ---- the bot pages' side (guest API)

  /** Notes a page load, with how its seed has the bot's own tile marked (a failure can name it). */
  recordPageLoad(load: Omit<PageLoad, 'selfTile' | 'audio' | 'speakingMark' | 'captionsRefused'>): void {
    this.pageLoads.push({
      ...load,
      selfTile: selfTileOf(load.platform, load.markupSeed),
      audio: audioOf(load.platform, load.markupSeed),
      speakingMark: choiceOf(load.platform, load.markupSeed, 'speakingMark'),
      captionsRefused: choiceOf(load.platform, load.markupSeed, 'captionsRefused'),
    });
  }

  /**
   * Calls `listener` with every utterance said from now on (the media server plays it to the
   * audio sessions of its audience); returns what stops it.
   */
  onUtterance(listener: (utterance: Utterance) => void): () => void {
    this.events.on('utterance', listener);
    return () => this.events.off('utterance', listener);
  }

  /** The utterances a bot's page is to hear now: said while it was in the call, not yet over. */
  speechFor(guestId: string): Utterance[] {
    const bot = this.bots.get(guestId);
    if (bot?.screen !== 'in_call') return [];
    return this.utterances.filter((u) => u.audience.includes(guestId) && Date.now() < u.startedAt + u.durationMs);
  }

  /** The media server reports having started an utterance's sound to a page. */
  recordPlay(guestId: string, utteranceId: string, play: Omit<UtterancePlay, 'guestId'>): void {
    const utterance = this.utterances.find((u) => u.id === utteranceId);
    if (!utterance || !utterance.audience.includes(guestId)) return;
    utterance.plays.push({ guestId, ...play });
  }

  recordAudioEvent(guestId: string, event: AudioEvent['event'], at: number, detail?: string): void {
    this.audioEvents.push({ guestId, event, at, ...(detail ? { detail } : {}) });
  }

  addBot(bot: Pick<BotRecord, 'name' | 'platform' | 'micOn' | 'camOn' | 'hl' | 'account' | 'prejoin'>): BotRecord {
    const record: BotRecord = {
      ...bot,
      guestId: randomBytes(8).toString('hex'),
      screen: 'lobby',
      terminal: null,
      captionsOn: false,
      captionLanguage: null,
      requestedAt: now(),
      admittedAt: null,
      leftAt: null,
      leftVia: null,
    };
    this.bots.set(record.guestId, record);
    if (this.endedAt) this.terminate(record, 'ended');
    else if (!this.options.lobby) {
      record.screen = 'in_call';
      record.admittedAt = record.requestedAt;
    }
    this.broadcast();
    return record;
  }

  attach(guestId: string, sink: ViewSink): void {
    this.sinks.set(guestId, sink);
    sink(this.viewFor(this.bot(guestId)));
  }

  detach(guestId: string): void {
    this.sinks.delete(guestId);
    const bot = this.bots.get(guestId);
    if (bot && bot.screen !== 'terminal' && !bot.leftAt) {
      bot.leftAt = now();
      bot.leftVia = 'disconnected';
      bot.screen = 'terminal';
      bot.terminal = 'left';
      this.broadcast();
    }
  }

  setCaptions(guestId: string, on: boolean): void {
    this.bot(guestId).captionsOn = on;
    this.broadcast();
  }

  /** The bot picked a caption language in the platform's settings (its label as shown). */
  setCaptionLanguage(guestId: string, label: string): void {
    this.bot(guestId).captionLanguage = label;
    this.broadcast();
  }

  leaveByButton(guestId: string): void {
    const bot = this.bot(guestId);
    if (bot.screen === 'terminal') return;
    bot.leftVia = 'leave_button';
    this.terminate(bot, 'left');
    this.broadcast();
  }

  hasGuest(guestId: string): boolean {
    return this.bots.has(guestId);
  }

  // ---- internals

  private person(nameOrId: string): ParticipantRecord {
    const person = this.people.find((p) => !p.leftAt && (p.id === nameOrId || p.name === nameOrId));
    if (!person) throw new Error(`${nameOrId} is not in meeting ${this.id}`);
    return person;
  }

  private bot(guestId: string): BotRecord {
    const bot = this.bots.get(guestId);
    if (!bot) throw new Error(`unknown guest ${guestId}`);
    return bot;
  }

  private forBots(screen: BotScreen, change: (bot: BotRecord) => void): void {
    for (const bot of this.bots.values()) if (bot.screen === screen) change(bot);
    this.broadcast();
  }

  private terminate(bot: BotRecord, terminal: TerminalScreen): void {
    bot.screen = 'terminal';
    bot.terminal = terminal;
    bot.leftAt ??= now();
  }

  private viewFor(bot: BotRecord): GuestView {
    const inCall = bot.screen === 'in_call';
    const bots = [...this.bots.values()].filter((b) => b.screen === 'in_call');
    return {
      screen: bot.screen,
      terminal: bot.terminal,
      participants: inCall
        ? [
            ...bots.map((b) => ({ id: b.guestId, name: b.name, self: b === bot, suffix: null, presenting: false })),
            ...this.people
              .filter((p) => !p.leftAt)
              .map((p) => ({ id: p.id, name: p.name, self: false, suffix: p.suffix, presenting: p.presenting })),
          ]
        : [],
      captions: inCall && this.options.captionsAllowed ? this.board.visible() : [],
      captionsAllowed: this.options.captionsAllowed,
      speech: inCall
        ? this.speechFor(bot.guestId).map((u) => ({
            id: u.id,
            speaker: u.speaker,
            url: u.audioUrl,
            startAt: u.startedAt,
            durationMs: u.durationMs,
            ...(u.unseen ? { unseen: true } : {}),
          }))
        : [],
    };
  }

  private broadcast(): void {
    for (const [guestId, sink] of this.sinks) {
      const bot = this.bots.get(guestId);
      if (bot) sink(this.viewFor(bot));
    }
    this.events.emit('change');
  }
}

const delayUntil = (at: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

const copyUtterance = (u: Utterance): Utterance => ({
  ...u,
  audience: [...u.audience],
  plays: u.plays.map((p) => ({ ...p })),
});
