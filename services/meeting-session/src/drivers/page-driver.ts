/**
 * A meeting bot in one browser page, whatever the platform: it opens the link, steps through the
 * pre-join screens, waits in the lobby, and once in the call reads captions and participants until
 * the meeting ends for it or it is told to leave. The page is read in one round trip every
 * `pollIntervalMs`; caption changes also arrive at once from a MutationObserver in the page.
 * The platform adapter knows the page; this class keeps the lifecycle and the listener's promises.
 */
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import { randomBytes } from 'node:crypto';
import type { Page } from 'puppeteer-core';
import type { BrowserLease, BrowserPool } from './browser.js';
import { CaptionHealth, withoutNames } from './caption-health.js';
import { CaptionLanguage } from './caption-language.js';
import type { CaptionTracker } from './caption-tracker.js';
import type { DriverListener, JoinTarget, MeetingDriver, PageEvidence, SnapshotNode } from './driver.js';
import { JoinScreenWatch } from './join-screen-watch.js';
import { TerminalWatch } from './terminal-watch.js';
import { GuardedListener } from './listener-guard.js';
import { actions, CAPTIONS_BINDING, type InspectOptions, type SnapshotArea } from './page-actions.js';
import { seedStorageState } from './storage-state.js';
import { PageAudio } from './page-audio.js';
import { PageChat } from './page-chat.js';
import { VideoSavings, type VideoSaving } from './video/index.js';
import { revealControls } from './pointer.js';
import { bindPage } from './page-bindings.js';
import { looksOf, peopleOf, TileReadings, type TileReading } from './tile-readings.js';
import type { PageState } from './page-readings.js';
import { ActionMemo, type PlatformAdapter, type TimingSettings } from './platform.js';
import { PageVoice } from './page-voice.js';
import { MICROPHONES } from './microphones.js';
import type { BotVoice } from '../speech/bot-voice.js';
import { sleep, withTimeout } from './page-answer.js';

export interface PageDriverSettings extends TimingSettings {
  lobbyTimeoutMs: number;
  joinTimeoutMs: number;
  pollIntervalMs: number;
  /** The reading interval in a settled call of a meeting not transcribed from audio (readingDelay). */
  livePollIntervalMs: number;
  captionBlindAfterMs: number;
  /** Joining, stuck this long on one screen (unknown, or known but not acted on) raises join_screen_unknown (JoinScreenWatch). */
  unknownScreenWarnMs: number;
  /** BOT_VIDEO_SAVINGS (video/settings.ts); absent: none. */
  videoSavings?: readonly VideoSaving[];
}

type Phase = 'joining' | 'lobby' | 'live' | 'over';

const ENDS: ReadonlySet<string> = new Set<DriverEnd>(['removed', 'meeting_ended']);
/** Failures reported with what the page looked like (PageEvidence): a CAPTCHA or bot wall. */
const WALLS: ReadonlySet<DriverFailure> = new Set<DriverFailure>(['bot_detected']);
/** A wall is reported within seconds: its screenshot may not hold the report up for longer. */
const EVIDENCE_TIMEOUT_MS = 3_000;
/** A reading that takes longer than this means a hung renderer. */
const READING_TIMEOUT_MS = 10_000;
/** Consecutive failed readings tolerated (navigations between screens cause a few). */
const MAX_FAILED_READINGS = 40;
/** After an action, the page is read again sooner to see its effect. */
const AFTER_ACTION_MS = 60;
const LEAVE_CONFIRM_MS = 2_000;
/** Times the link is opened at most while the platform keeps sending the browser where it cannot join from. */
const MAX_OPENS = 3;

export class PageDriver<Item> implements MeetingDriver {
  private listener: GuardedListener | null = null;
  private lease: BrowserLease | null = null;
  private page: Page | null = null;
  private phase: Phase = 'joining';
  private stopping = false;
  private starting: Promise<void> | null = null;
  private leaving: Promise<void> | null = null;
  private releasing: Promise<void> | null = null;
  private readonly tracker: CaptionTracker<Item>;
  private readonly tiles = new TileReadings();
  private readonly memo = new ActionMemo();
  private readonly health: CaptionHealth;
  private readonly joinScreens: JoinScreenWatch;
  private readonly terminals = new TerminalWatch();
  /** The caption language asked for, selected once captions are on; null: the platform's default. */
  private readonly language: CaptionLanguage | null;
  /** Caption text was read since the last health reading. */
  private textRead = false;
  private lastSeq = 0;
  private deadline = 0;
  /** Signed in: the name the platform shows for the bot's account (its tile carries it, not displayName). */
  private accountName: string | null = null;
  private readonly audio: PageAudio;
  /** The meeting's chat: read while live, and written (sendChat). */
  private readonly chat: PageChat;
  /** The bot's microphone and the platform's button for it (page-voice.ts). */
  private readonly pageVoice: PageVoice;
  private readonly video: VideoSavings;
  /** The last caption state reported, so that only changes are. */
  private lastCaptionsOn: boolean | null = null;
  /** The join progress last reported (reportJoinProgress), so that only changes are. */
  private progressKey = '';
  /** Times the meeting's link was opened (PlatformAdapter.startOver opens it again). */
  private opens = 1;
  /** What each reading reads: the tiles' looks only for a meeting transcribed from its audio. */
  private readonly reading: InspectOptions;

  constructor(
    private readonly target: JoinTarget,
    private readonly adapter: PlatformAdapter<Item>,
    private readonly browsers: BrowserPool,
    private readonly settings: PageDriverSettings,
    private readonly clock: () => number = Date.now,
  ) {
    this.health = new CaptionHealth(settings.captionBlindAfterMs);
    this.reading = { looks: !!target.transcribeAudio };
    this.audio = new PageAudio(
      target,
      () => (this.stopping || this.phase !== 'live' ? null : this.listener),
      async (page) => (adapter.clientFrame ? adapter.clientFrame(page) : page.mainFrame()),
      adapter.mixTrack,
    );
    this.chat = new PageChat(
      target.platform,
      () => this.displayName,
      () => (this.stopping || this.phase !== 'live' || !this.listener ? null : (m) => this.listener?.chat(m)),
      async (page) => (adapter.clientFrame ? adapter.clientFrame(page) : page.mainFrame()),
      clock,
    );
    this.joinScreens = new JoinScreenWatch(settings.unknownScreenWarnMs);
    this.pageVoice = new PageVoice(
      () => (this.stopping || this.phase !== 'live' ? null : this.page),
      async (page) => (adapter.clientFrame ? adapter.clientFrame(page) : page.mainFrame()),
      MICROPHONES[target.platform],
    );
    this.video = new VideoSavings(settings.videoSavings ?? [], target.platform);
    this.language = target.language ? new CaptionLanguage(target.language) : null;
    const prefix = randomBytes(4).toString('hex');
    let turns = 0;
    this.tracker = adapter.createTracker(
      {
        partial: (update) => this.listener?.caption(update),
        final: (segment) => this.listener?.segment(segment),
        newId: () => `cap_${prefix}_${++turns}`,
      },
      settings,
    );
  }

  start(listener: DriverListener): Promise<void> {
    if (this.listener) return Promise.reject(new Error('this driver was already started'));
    this.listener = new GuardedListener(listener);
    this.starting = this.begin();
    return this.starting;
  }

  leave(): Promise<void> {
    this.leaving ??= this.stop();
    return this.leaving;
  }

  sendChat(text: string): Promise<void> {
    return this.chat.send(text);
  }

  /** The bot's voice while it is in the call, else null. */
  voice(): BotVoice | null {
    return this.stopping || this.phase !== 'live' ? null : this.pageVoice;
  }

  private async begin(): Promise<void> {
    try {
      this.lease = await this.browsers.acquire();
    } catch (error) {
      this.fail('browser_unavailable', message(error));
      return;
    }
    if (this.stopping) return;
    this.lease.onCrash(() => this.fail('browser_crashed', 'the browser process exited'));
    try {
      this.page = await this.openPage(this.lease);
    } catch (error) {
      this.fail('join_failed', `could not open a page: ${message(error)}`);
      return;
    }
    if (this.stopping) return;
    this.deadline = this.clock() + this.settings.joinTimeoutMs;
    void this.watch(this.page);
  }

  private async openPage(lease: BrowserLease): Promise<Page> {
    const page = await lease.context.newPage();
    page.on('error', () => this.fail('browser_crashed', 'the page crashed'));
    page.on('close', () => this.fail('browser_crashed', 'the page was closed'));
    if (this.target.account) await seedStorageState(lease, page, this.target.account.storageState);
    // A report that cannot be applied is dropped here: the poll reads the same captions into the
    // same tracker, and a reading that fails there is counted and, repeated, reported.
    await bindPage(page, { [CAPTIONS_BINDING]: (json) => this.observed(json) }, () => {});
    await this.audio.install(page, () => this.phase === 'live');
    await this.chat.install(page);
    // Whatever the page takes from getUserMedia is the bot's own microphone, never the fake device's beep.
    await PageVoice.install(page);
    await this.video.install(page);
    return page;
  }

  private async watch(page: Page): Promise<void> {
    try {
      await page.goto(this.adapter.joinUrl(this.target.url), {
        waitUntil: 'domcontentloaded',
        timeout: this.settings.joinTimeoutMs,
      });
    } catch (error) {
      this.fail('join_failed', `could not open the meeting link: ${message(error)}`);
      return;
    }
    let failures = 0;
    let settled = false;
    while (!this.stopping) {
      let acted = false;
      try {
        const state = await withTimeout(this.adapter.run(page, actions.inspect, this.reading), READING_TIMEOUT_MS);
        failures = 0;
        if (this.stopping) return;
        acted = await this.step(page, state);
        settled = this.phase === 'live' && this.isSettled(state);
      } catch (error) {
        if (this.stopping) return;
        if (++failures >= MAX_FAILED_READINGS) {
          this.fail(
            this.phase === 'live' ? 'browser_crashed' : 'join_failed',
            `the page stopped answering: ${message(error)}`,
          );
          return;
        }
      }
      await sleep(this.readingDelay(acted, settled && failures === 0));
    }
  }

  /**
   * Until the next reading. A settled call (captions on, no pop-up, the bot's own steps done) of
   * a meeting not transcribed from its audio is read every livePollIntervalMs: its captions come
   * from the observer at once, and what the readings add (people joining and leaving, a pop-up, the
   * end, the observer's health) is seen within that. The speaking indicators that name voices
   * (transcribeAudio) keep the quick pace, and so does a failed reading: a page that stopped
   * answering fails as soon as before (MAX_FAILED_READINGS quick readings).
   */
  private readingDelay(acted: boolean, settled: boolean): number {
    if (acted) return AFTER_ACTION_MS;
    const slow = settled && !this.reading.looks;
    return slow
      ? Math.max(this.settings.pollIntervalMs, this.settings.livePollIntervalMs)
      : this.settings.pollIntervalMs;
  }

  private isSettled(state: PageState<Item>): boolean {
    return (
      state.screen === 'in_call' && state.captionsOn && !state.dialog && !this.language?.pending && this.video.settled
    );
  }

  /** Acts on one reading of the page; true if it did something worth a quick second look. */
  private async step(page: Page, state: PageState<Item>): Promise<boolean> {
    const now = this.clock();
    // Seen twice, or not acted on (TerminalWatch): nothing else is done with a terminal reading.
    const terminal = state.outcome ?? this.joinFailureOf(state, now);
    const confirmed = this.terminals.confirmed(state.screen, terminal, now);
    if (terminal) {
      if (confirmed) await this.actOnTerminal(page, state, terminal);
      return false;
    }
    // Controls hidden until the pointer moves: moved, and (joining) the page read again at once.
    if (state.controlsHidden && this.memo.due('pointer', now, 1000)) {
      await revealControls(page);
      if (this.phase !== 'live') return true;
    }
    const over = this.phase === 'joining' ? this.adapter.startOver?.(state) : null;
    if (over) return this.openAgain(page, over);
    if (state.prejoin?.identity && this.accountName === null && this.target.account) {
      this.accountName = state.prejoin.identity.replace(/\s*\([^()]*@[^()]*\)$/, '');
      this.listener?.signedIn(state.prejoin.identity);
    }
    const context = {
      page,
      state,
      displayName: this.displayName,
      passcode: this.target.passcode ?? null,
      memo: this.memo,
      now,
    };
    if (this.phase === 'live') {
      if (!state.observing) await this.adapter.run(page, actions.observe);
      this.applyCaptions(state.seq, state.captions, now);
      this.tracker.tick(now);
      if (state.participants) this.reportParticipants(state.participants);
      if (state.participants && this.reading.looks) this.reportLooks(state.participants, state.readAt);
      this.reportCaptionsOn(state.captionsOn);
      if (state.screen === 'in_call') {
        await this.adapter.tendCall(context);
        // The caption language is chosen among the languages captions can be in: with captions on.
        if (state.captionsOn && !state.dialog && this.language?.pending) {
          await this.language.step({ page, adapter: this.adapter }, this.memo, now);
        }
        await this.checkLanguage(page);
        await this.checkHealth(page, state, now);
        const frame = () =>
          this.adapter.clientFrame ? this.adapter.clientFrame(page) : Promise.resolve(page.mainFrame());
        if (!this.language?.pending) await this.video.tend(frame, state, now);
      }
      return false;
    }
    await this.watchJoinScreen(page, state, now);
    this.reportJoinProgress(state);
    if (state.screen === 'in_call') {
      this.phase = 'live';
      this.listener?.admitted();
      await this.audio.start(page);
      this.chat.start(page);
      return true;
    }
    if (state.screen === 'lobby' && this.phase === 'joining') {
      this.phase = 'lobby';
      this.deadline = now + this.settings.lobbyTimeoutMs;
      this.listener?.lobby();
      return false;
    }
    if (now >= this.deadline) {
      if (this.phase === 'lobby') this.fail('lobby_timeout', `not admitted within ${this.settings.lobbyTimeoutMs} ms`);
      else this.fail('join_failed', `still on ${this.joinScreens.lastSeen} after ${this.settings.joinTimeoutMs} ms`);
      return false;
    }
    return this.phase === 'joining' ? this.adapter.advanceJoin(context) : false;
  }

  /** The platform sent the joining bot where it cannot join from (`why`): the link opened again, MAX_OPENS times in all. */
  private async openAgain(page: Page, why: string): Promise<boolean> {
    if (this.opens >= MAX_OPENS) {
      this.fail('join_failed', `${why}, on each of ${MAX_OPENS} tries`);
      return false;
    }
    this.opens++;
    await page.goto(this.adapter.joinUrl(this.target.url), {
      waitUntil: 'domcontentloaded',
      timeout: this.settings.joinTimeoutMs,
    });
    return true;
  }

  /** A failure the platform tells from a joining bot's reading that shows no outcome of its own (PlatformAdapter.joinFailure). */
  private joinFailureOf(state: PageState<Item>, now: number): DriverFailure | null {
    if (this.phase === 'live' || state.screen === 'in_call' || state.screen === 'lobby') return null;
    const situation = { passcode: this.target.passcode ?? null, timedOut: now >= this.deadline };
    return this.adapter.joinFailure?.(state, situation) ?? null;
  }

  /** A terminal reading, confirmed: the meeting is over for the bot, or joining failed. */
  private async actOnTerminal(page: Page, state: PageState<Item>, terminal: DriverFailure | DriverEnd): Promise<void> {
    if (ENDS.has(terminal)) return this.end(terminal as DriverEnd);
    const heading = state.heading ? ` ("${state.heading}")` : '';
    const where = `${state.screen} screen${heading} at ${hostOf(state.url)}`;
    const reason = state.outcome ? this.failureOf(state) : (terminal as DriverFailure);
    // A wall is never retried, so what it looked like is all the operator will ever have of it.
    const evidence = WALLS.has(reason) ? await this.evidenceOf(page) : undefined;
    this.fail(reason, where, evidence);
  }

  /**
   * A join screen the bot is stuck on (one no rule knows, or one it cannot act on), for long:
   * reported once with what the page looks like (its structure, no text; and a screenshot), and
   * cleared once the bot moves on to another screen. The bot keeps trying.
   */
  private async watchJoinScreen(page: Page, state: PageState<Item>, now: number): Promise<void> {
    const change = this.joinScreens.observe(state, now);
    if (change === 'clear') this.listener?.warning({ warning: 'join_screen_unknown', raised: false });
    if (change !== 'raise') return;
    const seen = `${this.joinScreens.lastSeen} for ${Math.round(this.joinScreens.stuckFor(now) / 1000)} s`;
    this.listener?.warning({ warning: 'join_screen_unknown', raised: true, seen, ...(await this.evidenceOf(page)) });
  }

  /** Where the joining bot is, and what a join timeout there would be, when either changed. */
  private reportJoinProgress(state: PageState<Item>): void {
    const seen = this.joinScreens.lastSeen;
    const onTimeout =
      this.adapter.joinFailure?.(state, { passcode: this.target.passcode ?? null, timedOut: true }) ?? 'join_failed';
    const key = `${seen}|${onTimeout}`;
    if (key === this.progressKey) return;
    this.progressKey = key;
    this.listener?.joinProgress({ seen, onTimeout });
  }

  /** The whole page's structure (no text, no names) and a screenshot, each left out if the page cannot give it in time. */
  private async evidenceOf(page: Page): Promise<PageEvidence> {
    const snapshot = await withTimeout(this.snapshotOf(page, 'page'), EVIDENCE_TIMEOUT_MS).catch(() => []);
    const screenshot = await withTimeout(page.screenshot({ type: 'png' }), EVIDENCE_TIMEOUT_MS).catch(() => undefined);
    return { snapshot, screenshot };
  }

  private get displayName(): string {
    return this.accountName ?? this.target.displayName;
  }

  /**
   * A refusal means something else for a signed-in bot: on the sign-in page its storage state is
   * no longer accepted; on a refusal screen the platform refuses the account itself.
   */
  private failureOf(state: PageState<Item>): DriverFailure {
    const reason = state.outcome as DriverFailure;
    if (reason !== 'guest_refused' || !this.target.account) return reason;
    return state.screen === 'sign_in' ? 'signed_out' : 'join_failed';
  }

  private observed(json: string): void {
    if (this.stopping || this.phase !== 'live') return;
    const report = JSON.parse(json) as { seq: number; items: Item[] };
    this.applyCaptions(report.seq, report.items, this.clock());
  }

  private applyCaptions(seq: number, items: Item[] | null, now: number): void {
    // The observer and the poll both read the page; an older reading must never undo a newer one.
    if (!items || seq <= this.lastSeq) return;
    this.lastSeq = seq;
    if (items.some((item) => (item as { text?: string }).text)) this.textRead = true;
    this.tracker.update(items, now);
  }

  /** Raises or clears a caption warning; a raised one carries what the page looks like there. */
  private async checkHealth(page: Page, state: PageState<Item>, now: number): Promise<void> {
    const changes = this.health.observe({
      now,
      captionsOn: state.captionsOn,
      areaChanges: state.areaChanges,
      textRead: this.textRead,
    });
    this.textRead = false;
    for (const { warning, raised, seen } of changes) {
      if (!raised) {
        this.listener?.warning({ warning, raised });
        continue;
      }
      const where = warning === 'captions_unavailable' ? 'toolbar' : 'captions';
      this.listener?.warning({ warning, raised, seen, snapshot: await this.snapshotOf(page, where) });
    }
  }

  /**
   * The language asked for cannot be had: the meeting goes on in the platform's default, and the
   * operator is told (a warning of its own, which caption health never clears).
   */
  private async checkLanguage(page: Page): Promise<void> {
    const problem = this.language?.takeProblem();
    if (!problem) return;
    this.listener?.warning({
      warning: 'caption_language_unavailable',
      raised: true,
      seen: problem.seen,
      snapshot: problem.snapshot ? await this.snapshotOf(page, problem.snapshot) : [],
    });
  }

  /** The page's structure in `area` for a warning, without the names of the bot and the people in the call. */
  private async snapshotOf(page: Page, area: SnapshotArea): Promise<SnapshotNode[]> {
    const snapshot = await this.adapter.run(page, actions.snapshot, area).catch(() => []);
    return withoutNames(snapshot, [this.displayName, ...(this.tiles.names ?? [])]);
  }

  /** The people in the call, never the bot (see peopleOf), when they changed; nothing while no list of them shows. */
  private reportParticipants(reading: TileReading): void {
    if (!reading.names) return;
    const changed = this.tiles.update(peopleOf(reading, this.displayName));
    if (changed) this.listener?.participants(changed);
  }

  /** How the tiles look (the bot's never among them: looksOf), at every reading: what was seen when. */
  private reportLooks(reading: TileReading, at: number): void {
    this.listener?.looks(looksOf(reading, this.displayName), at);
  }

  private reportCaptionsOn(on: boolean): void {
    if (on === this.lastCaptionsOn) return;
    this.lastCaptionsOn = on;
    this.listener?.captionsOn(on);
  }

  private fail(reason: DriverFailure, detail?: string, evidence?: PageEvidence): void {
    this.finish((listener) => listener.failed(reason, detail, evidence));
  }

  private end(reason: DriverEnd): void {
    this.finish((listener) => listener.ended(reason));
  }

  /** The meeting is over for the bot: what was said so far is final, then the one terminal event. */
  private finish(report: (listener: GuardedListener) => void): void {
    if (this.stopping) return;
    this.stopping = true;
    this.phase = 'over';
    this.chat.stop();
    this.tracker.flush();
    if (this.listener) report(this.listener);
    void this.release();
  }

  private async stop(): Promise<void> {
    if (!this.stopping) {
      if (this.phase === 'live' && this.page) await this.audio.stop(this.page);
      this.stopping = true;
      this.chat.stop();
      const wasLive = this.phase === 'live';
      this.phase = 'over';
      this.tracker.flush();
      this.listener?.silence();
      await this.starting?.catch(() => {});
      if (wasLive && this.page) await this.leaveCall(this.page).catch(() => {});
    }
    this.listener?.silence();
    await this.release();
  }

  /** Leaves through the platform's own button, so the others see the bot leave at once. */
  private async leaveCall(page: Page): Promise<void> {
    // The leave button may hide until the pointer moves.
    await withTimeout(revealControls(page), LEAVE_CONFIRM_MS).catch(() => {});
    if (!(await withTimeout(this.adapter.run(page, actions.leave), LEAVE_CONFIRM_MS))) return;
    const until = this.clock() + LEAVE_CONFIRM_MS;
    while (this.clock() < until) {
      const state = await withTimeout(this.adapter.run(page, actions.inspect), LEAVE_CONFIRM_MS).catch(() => null);
      if (!state || state.screen !== 'in_call') return;
      await sleep(100);
    }
  }

  private release(): Promise<void> {
    this.releasing ??= (async () => {
      await this.starting?.catch(() => {});
      await this.lease?.release();
    })();
    return this.releasing;
  }
}

/** Only the host goes in a failure's detail: a sign-in URL carries the meeting link and more. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an unreadable URL';
  }
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
