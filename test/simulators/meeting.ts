/**
 * One simulated meeting, addressed by its native id (a Meet code, a Teams thread id or a teams.live
 * number). Tests script it in process; the control API maps HTTP calls onto the same methods. It
 * pushes each connected bot page the whole view it should show, and records the ground truth.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import { CaptionBoard } from './captions.js';
import { CaptionTurn } from './turn.js';
import { selfTileOf } from './pages/platforms.js';
import {
  defaultMeetingOptions,
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
} from './types.js';

type ViewSink = (view: GuestView) => void;

const now = () => new Date().toISOString();

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
    return this;
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

  // ---- observation

  /**
   * The caption blocks on screen now, speaker and displayed text (without the words a long Meet
   * turn dropped), oldest first: what a reader should read. Teams shows the last `visibleRows`.
   */
  captionsOnScreen(platform: SimPlatform): Array<{ speaker: string; text: string }> {
    const shown = this.board.visible().map(({ speaker, text }) => ({ speaker, text }));
    return platform === 'teams' ? shown.slice(-this.options.visibleRows) : shown;
  }

  truth(): GroundTruth {
    return {
      meetingId: this.id,
      segments: this.board.truth(),
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
  recordPageLoad(load: Omit<PageLoad, 'selfTile'>): void {
    this.pageLoads.push({ ...load, selfTile: selfTileOf(load.platform, load.markupSeed) });
  }

  addBot(bot: Pick<BotRecord, 'name' | 'platform' | 'micOn' | 'camOn' | 'hl' | 'account'>): BotRecord {
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
      captions: inCall ? this.board.visible() : [],
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
