/**
 * Shared by the driver tests: a listener that records everything, and waiting on it; the simulator
 * and a driver factory for a suite; joining a simulated meeting, saying caption turns in it, and the
 * endings the host gives a bot.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import type { DriverEnd, DriverFailure } from '@notetaker/contracts';
import type { AudioBatch, PcmChunk, PcmMessage, SkippedAudio } from '../../src/recording/page-capture.js';
import type { TileLook } from '../../src/drivers/tile-readings.js';
import type {
  CaptionUpdate,
  CaptionWarningChange,
  DriverFactory,
  DriverListener,
  FinalSegment,
  JoinTarget,
  MeetingDriver,
  PageEvidence,
} from '../../src/drivers/index.js';
import {
  growWords,
  startSimulator,
  type GroundTruth,
  type SimMeeting,
  type SimPlatform,
  type Simulator,
} from '../../../../test/simulators/index.js';
import {
  createDriverFactory,
  type DriverFactoryOptions,
  type PuppeteerDriverFactory,
} from '../../src/drivers/index.js';
import { eventually } from '../../../../test/support/wait.js';
export { sleep } from '../../../../test/support/wait.js';

export class RecordingListener implements DriverListener {
  readonly events: string[] = [];
  readonly captions: CaptionUpdate[] = [];
  readonly segments: FinalSegment[] = [];
  readonly rosters: string[][] = [];
  endedWith: DriverEnd | null = null;
  failedWith: { reason: DriverFailure; detail?: string } | null = null;
  readonly warnings: CaptionWarningChange[] = [];
  readonly identities: string[] = [];

  signedIn(identity: string): void {
    this.identities.push(identity);
    this.events.push('signed_in');
  }

  lobby(): void {
    this.events.push('lobby');
  }
  admitted(): void {
    this.events.push('admitted');
  }
  caption(update: CaptionUpdate): void {
    this.captions.push(update);
    if (this.events.at(-1) !== 'caption') this.events.push('caption');
  }
  segment(segment: FinalSegment): void {
    this.segments.push(segment);
    this.events.push('segment');
  }
  participants(names: string[]): void {
    this.rosters.push(names);
    this.events.push('participants');
  }
  ended(reason: DriverEnd): void {
    this.endedWith = reason;
    this.events.push(`ended:${reason}`);
  }
  /** What the page looked like, where the failure came with it (a bot wall); kept apart from failedWith, which messages print. */
  failedEvidence: PageEvidence | null = null;
  failed(reason: DriverFailure, detail?: string, evidence?: PageEvidence): void {
    this.failedWith = { reason, detail };
    this.failedEvidence = evidence ?? null;
    this.events.push(`failed:${reason}`);
  }

  readonly audioBatches: AudioBatch[] = [];
  audio(batch: AudioBatch): void {
    this.audioBatches.push(batch);
  }
  audioFailed(detail: string): void {
    this.events.push(`audio_failed:${detail}`);
  }
  readonly audioSkips: SkippedAudio[] = [];
  audioSkipped(skip: SkippedAudio): void {
    this.audioSkips.push(skip);
    this.events.push(`audio_skipped:${skip.detail}`);
  }
  pcmFailed(detail: string | null): void {
    this.events.push(detail === null ? 'pcm_running' : `pcm_failed:${detail}`);
  }

  readonly pcmChunks: PcmChunk[] = [];
  /** The tracks the page said went quiet (muted, ended), in order. */
  readonly quietTracks: string[] = [];
  pcm(message: PcmMessage): void {
    if ('quiet' in message) this.quietTracks.push(message.track);
    else this.pcmChunks.push(message);
  }
  /** Each reading of the tiles' looks, with when the page was read. */
  readonly lookChanges: Array<{ tiles: TileLook[]; at: number }> = [];
  looks(tiles: TileLook[], at: number): void {
    this.lookChanges.push({ tiles, at });
  }
  readonly captionStates: boolean[] = [];
  captionsOn(on: boolean): void {
    this.captionStates.push(on);
  }

  warning(change: CaptionWarningChange): void {
    this.warnings.push(change);
    this.events.push(`warning:${change.warning}:${change.raised ? 'raised' : 'cleared'}`);
  }

  get roster(): string[] | undefined {
    return this.rosters.at(-1);
  }

  /** Resolves once `condition` holds; fails with what was recorded so far. */
  async until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    await eventually(condition, what, timeoutMs).catch((err: Error) => {
      throw new Error(`${err.message}; events: ${this.events.join(', ')}; failed: ${JSON.stringify(this.failedWith)}`);
    });
  }
}

/**
 * The driver's finalised segments are the simulator's ground truth, speaker and text; every partial
 * of a turn is a text that turn really showed, in order, and its last partial is the final text.
 */
export function expectMatchesTruth(listener: RecordingListener, truth: GroundTruth): void {
  expect(listener.segments.map(({ speaker, text }) => ({ speaker, text }))).to.deep.equal(
    truth.segments.map(({ speaker, text }) => ({ speaker, text })),
  );
  const byTurn = new Map<string, CaptionUpdate[]>();
  for (const update of listener.captions)
    byTurn.set(update.captionId, [...(byTurn.get(update.captionId) ?? []), update]);
  expect(byTurn.size).to.equal(truth.segments.length);
  [...byTurn.values()].forEach((partials, i) => {
    const turn = truth.segments[i];
    let position = -1;
    for (const partial of partials) {
      expect(partial.speaker).to.equal(turn.speaker);
      const found = turn.history.indexOf(partial.text, position + 1);
      expect(found, `"${partial.text}" is a text turn ${i + 1} showed, in order`).to.be.greaterThan(position);
      position = found;
    }
    expect(partials.at(-1)?.text).to.equal(turn.text);
  });
}

/**
 * The simulator and a driver factory pointed at it, for one suite: started before its tests
 * (polling every 150 ms unless `options` say otherwise), closed after them.
 */
export function driversOnSimulator(options: DriverFactoryOptions = {}): {
  sim: Simulator;
  factory: PuppeteerDriverFactory;
} {
  const suite = {} as { sim: Simulator; factory: PuppeteerDriverFactory };
  before(async () => {
    suite.sim = await startSimulator();
    suite.factory = createDriverFactory({ extraArgs: suite.sim.hostResolverRules(), pollIntervalMs: 150, ...options });
  });
  after(async () => {
    await suite.factory?.close();
    await suite.sim?.close();
  });
  return suite;
}

/** Skips the suite, saying why, where espeak-ng (the voice of the simulated meetings' speech) is missing. */
export function skipWithoutEspeak(): void {
  before(function () {
    try {
      execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
    } catch {
      console.log('      skipped: needs espeak-ng');
      this.skip();
    }
  });
}

/**
 * Starts a driver of `factory` on the simulated meeting `id` (as "Notetaker", meeting id
 * `meeting_<id>` unless `target` says otherwise), recording what it reports.
 */
export async function joinSimulated(
  { sim, factory }: { sim: Simulator; factory: DriverFactory },
  platform: SimPlatform,
  id: string,
  target: Partial<JoinTarget> = {},
): Promise<{ listener: RecordingListener; driver: MeetingDriver }> {
  const listener = new RecordingListener();
  const driver = factory.create({
    platform,
    url: sim.url(platform, id),
    meetingId: `meeting_${id}`,
    displayName: 'Notetaker',
    ...target,
  });
  await driver.start(listener);
  return { listener, driver };
}

/** A caption turn: what was heard, shown word by word, then corrected to `said` where that differs. */
export interface Turn {
  speaker: string;
  heard: string;
  said?: string;
}

/**
 * Says `turns` in captions one after the other; the driver must finalise each as a segment of the
 * ground truth, in order, with the turn's last text.
 */
export async function expectTurnsRead(meeting: SimMeeting, listener: RecordingListener, turns: Turn[]): Promise<void> {
  for (const { speaker, heard, said } of turns)
    await meeting.speak(speaker, said === undefined ? growWords(heard) : [...growWords(heard), said]);
  await listener.until(() => listener.segments.length === turns.length, `${turns.length} segments`);
  expectMatchesTruth(listener, meeting.truth());
  expect(listener.segments.map((s) => `${s.speaker}: ${s.text}`)).to.deep.equal(
    turns.map(({ speaker, heard, said }) => `${speaker}: ${said ?? heard}`),
  );
}

/** A bot in a simulated meeting: its meeting, and what its driver reports. */
interface BotIn {
  meeting: SimMeeting;
  listener: RecordingListener;
}

/**
 * The two endings a host gives a bot in the call: once both bots are admitted, `removed`'s meeting
 * removes its bot and `ended`'s meeting ends; their drivers must report `removed` and `meeting_ended`.
 */
export async function expectRemovedAndEnded(removed: BotIn, ended: BotIn): Promise<void> {
  await removed.listener.until(() => removed.listener.events.includes('admitted'), 'admitted');
  await ended.listener.until(() => ended.listener.events.includes('admitted'), 'admitted');
  removed.meeting.removeBot();
  ended.meeting.end();
  await removed.listener.until(() => removed.listener.endedWith !== null, 'the removal');
  await ended.listener.until(() => ended.listener.endedWith !== null, 'the end');
  expect(removed.listener.endedWith).to.equal('removed');
  expect(ended.listener.endedWith).to.equal('meeting_ended');
}

/**
 * People coming and going around the bot: with `first` in the call, the bot joins (`joinBot`), then
 * `second` joins and `first` leaves. Each line-up (first; first and second; second) is awaited in
 * the bot's roster before the next step; resolves to what `joinBot` gave.
 */
export async function comeAndGo<J extends { listener: RecordingListener }>(
  meeting: SimMeeting,
  joinBot: () => Promise<J>,
  first: string,
  second: string,
): Promise<J> {
  meeting.join(first);
  const joined = await joinBot();
  const roster = (names: string[], what: string) =>
    joined.listener.until(() => joined.listener.roster?.join() === names.join(), what);
  await roster([first], `${first} in the roster`);
  meeting.join(second);
  await roster([first, second], `${second} in the roster`);
  meeting.leave(first);
  await roster([second], `${first} gone`);
  return joined;
}
