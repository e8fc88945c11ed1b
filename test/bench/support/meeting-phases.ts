/**
 * The phases of the meeting benches that compare two settings of the product (recording.bench.ts:
 * recording or none; audio-transcription.bench.ts: captions or audio). A phase starts `count`
 * meetings at once on the Meet / Teams simulator (alternating, lobby off); once they are live their
 * participants talk, sentence after pause, and after a warm-up a window of `liveS` seconds is
 * measured; then the talk ends and the meetings are stopped. The phases of the two kinds take
 * turns (ABBA by default), so that a drift of the machine's speed cancels out of their difference.
 */
import type { BotRecord, SimPlatform } from '../../simulators/index.js';
import { sleep, type StartedMeeting, type World } from '../../e2e/support/world.js';
import type { ReceivedCallback } from '../../support/callback-receiver.js';
import { measureWindow, type MeasuredWindow } from './measured-window.js';
import type { CaptionTimes } from './timed-speech.js';

/** Talking before the window opens: the pages' audio and what the worker does with it are running by then. */
const WARMUP_MS = 8_000;
const SAMPLE_MS = 2_500;
const JOIN_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;
/** Before a phase, the contexts of the last one close; after the talk, its last events arrive. */
const BETWEEN_PHASES_MS = 3_000;
const AFTER_TALK_MS = 1_500;

/** What every phase gathers; a bench's phase adds its own figures. */
export interface MeetingsPhase<M extends string = string> extends CaptionTimes, Omit<MeasuredWindow, 'machineBusyS'> {
  mode: M;
  meetings: StartedMeeting[];
  /** `${platform}: ${why}`, one a meeting that did not go live. */
  failures: string[];
  badSignatures: number;
  /** From the first sentence until the window has closed and the last sentences ended. */
  talking: boolean;
  talkingS: number;
  said: number;
  sayErrors: number;
  /** Cores the rest of the machine (other processes than ours) kept busy during the window. */
  othersCores: number;
}

export function newMeetingsPhase<M extends string>(mode: M): MeetingsPhase<M> {
  return {
    mode,
    meetings: [],
    failures: [],
    pending: new Map(),
    shown: 0,
    captionMs: [],
    badSignatures: 0,
    talking: false,
    talkingS: 0,
    said: 0,
    sayErrors: 0,
    windowFrom: 0,
    windowTo: 0,
    windowS: 0,
    cpuChromiumS: 0,
    cpuNodeS: 0,
    pssBytes: [],
    processes: 0,
    steal: '',
    othersCores: 0,
    load: [0, 0],
  };
}

/** Cores kept busy over the window by the bots' Chromium and this process. */
export const cores = (p: MeetingsPhase) => (p.cpuChromiumS + p.cpuNodeS) / p.windowS;

/**
 * Waits until the bot is `ready` in the simulated meeting and the meeting is live; returns the
 * `live` callback. A meeting that does not get there in time is stopped, and the error names it.
 */
export async function untilLive(
  world: World,
  m: StartedMeeting,
  ready: (bot: BotRecord) => boolean,
): Promise<ReceivedCallback> {
  try {
    await m.sim.waitForBot(ready, JOIN_TIMEOUT_MS);
    return await world.waitForStatus(m.meetingId, 'live', JOIN_TIMEOUT_MS);
  } catch (err) {
    await world.stop(m.meetingId).catch(() => undefined);
    throw new Error(`${m.meetingId}: ${(err as Error).message}`);
  }
}

export interface TalkSteps {
  /** Meeting `index` says its `k`-th sentence. */
  say(m: StartedMeeting, index: number, k: number): Promise<void>;
  /** The pause after meeting `index`'s `k`-th sentence (ms). */
  pauseMs(index: number, k: number): number;
  /**
   * Measures the window into the phase (`measureInto(p, openWindow())` when left out): `openWindow()`
   * opens it, `liveS` from then on, and returns when it closes (epoch ms).
   */
  measure?(openWindow: () => number): Promise<void>;
  /** Just before a meeting's stop request. */
  stopping?(m: StartedMeeting): void;
}

/**
 * Sentence, pause, sentence... until `until()` (epoch ms), the meetings' first sentences spread
 * over 3 s; a sentence that cannot be said ends the meeting's talk.
 */
async function talk(
  p: MeetingsPhase,
  m: StartedMeeting,
  index: number,
  count: number,
  steps: TalkSteps,
  until: () => number,
): Promise<void> {
  await sleep((index * 3_000) / count);
  for (let k = 0; Date.now() < until(); k++) {
    try {
      await steps.say(m, index, k);
      p.said++;
    } catch (err) {
      p.sayErrors++;
      console.log(`   ${m.meetingId}: say failed: ${(err as Error).message}`);
      return;
    }
    await sleep(Math.min(steps.pauseMs(index, k), Math.max(0, until() - Date.now())));
  }
}

/** The window from now until `until` (epoch ms) measured into the phase, with what the rest of the machine kept busy. */
export async function measureInto(p: MeetingsPhase, until: number): Promise<void> {
  const { machineBusyS, ...measured } = await measureWindow(until, SAMPLE_MS);
  Object.assign(p, measured);
  p.othersCores = machineBusyS / p.windowS - cores(p);
}

/** A bench's phases, from the command line: how many meetings each, how long a window, which kinds in which order. */
export class PhasePlan<M extends string = string> {
  private constructor(
    readonly liveS: number,
    /** Meetings a phase. */
    readonly count: number,
    readonly phases: M[],
  ) {}

  /** `[liveSeconds=60] [meetingsPerPhase=10] [phases=<defaultPhases>]`, each phase one of `modes`. */
  static fromArgv<M extends string>(modes: readonly M[], defaultPhases: string): PhasePlan<M> {
    const phases = (process.argv[4] ?? defaultPhases).split(',').map((phase) => {
      const mode = modes.find((m) => m === phase);
      if (mode === undefined) throw new Error(`a phase is ${modes.join(' or ')}, not ${phase}`);
      return mode;
    });
    return new PhasePlan(Number(process.argv[2] ?? 60), Number(process.argv[3] ?? 10), phases);
  }

  /** The world's settings: a worker takes every meeting of a phase, and no meeting ends mid-window. */
  worldEnv(): Record<string, string> {
    return {
      MAX_MEETINGS_PER_WORKER: String(Math.max(10, this.count)),
      // The world's 90 s cap would end the meetings mid-window.
      MAX_MEETING_DURATION_MS: String((this.liveS * 1000 + WARMUP_MS) * 3 + 120_000),
    };
  }

  /** Long enough for every phase to join, talk and stop at its slowest: past it the bench gives up. */
  deadlineMs(): number {
    return this.phases.length * (2 * JOIN_TIMEOUT_MS + WARMUP_MS + this.liveS * 1000 + STOP_TIMEOUT_MS + 60_000);
  }

  /** Each phase in turn, printed as it ends (`print` gives its figures). */
  async run<P, F>(
    runPhase: (mode: M) => Promise<P>,
    print: (p: P, n: number) => F,
  ): Promise<Array<{ p: P; figures: F }>> {
    const done: Array<{ p: P; figures: F }> = [];
    for (const [i, mode] of this.phases.entries()) {
      const p = await runPhase(mode);
      done.push({ p, figures: print(p, i + 1) });
      await sleep(BETWEEN_PHASES_MS);
    }
    return done;
  }

  /**
   * Starts the phase's meetings at once, Meet and Teams alternating (or the platforms BENCH_PLATFORMS
   * lists, in turn: `zoom`, `google_meet,teams,zoom`): those that go live are the phase's.
   */
  async join(p: MeetingsPhase, join: (platform: SimPlatform, i: number) => Promise<StartedMeeting>): Promise<void> {
    const platforms: SimPlatform[] = Array.from(
      { length: this.count },
      (_, i) => benchPlatforms()[i % benchPlatforms().length],
    );
    const joined = await Promise.allSettled(platforms.map((platform, i) => join(platform, i)));
    for (const [i, result] of joined.entries()) {
      if (result.status === 'fulfilled') p.meetings.push(result.value);
      else {
        const why = (result.reason as Error).message;
        p.failures.push(`${platforms[i]}: ${why}`);
        console.log(`   ${p.mode} meeting ${i} (${platforms[i]}) failed to go live: ${why}`);
      }
    }
  }

  /**
   * The live meetings talk; after the warm-up the window is measured; once it has closed and the
   * last sentences have ended (a few seconds at most), the bots are asked to leave and their
   * meetings end.
   */
  async talkMeasureAndStop(world: World, p: MeetingsPhase, steps: TalkSteps): Promise<void> {
    let windowEnd = Number.POSITIVE_INFINITY;
    p.talking = true;
    const talkingSince = performance.now();
    const talking = Promise.all(p.meetings.map((m, index) => talk(p, m, index, this.count, steps, () => windowEnd)));
    await sleep(WARMUP_MS);
    const openWindow = () => {
      windowEnd = Date.now() + this.liveS * 1000;
      return windowEnd;
    };
    await (steps.measure ?? ((open) => measureInto(p, open())))(openWindow);
    await Promise.race([talking, sleep(20_000)]);
    p.talking = false;
    p.talkingS = (performance.now() - talkingSince) / 1000;
    await sleep(AFTER_TALK_MS);
    const stopped = await Promise.allSettled(
      p.meetings.map(async (m) => {
        steps.stopping?.(m);
        await world.stop(m.meetingId);
        await world.waitForStatus(m.meetingId, 'ended', STOP_TIMEOUT_MS);
      }),
    );
    for (const [i, result] of stopped.entries())
      if (result.status === 'rejected')
        console.log(`   ${p.meetings[i].meetingId} did not end: ${(result.reason as Error).message}`);
  }
}

/** The platforms a phase's meetings are on, in turn (BENCH_PLATFORMS, default Meet and Teams). */
export function benchPlatforms(): SimPlatform[] {
  return (process.env.BENCH_PLATFORMS ?? 'google_meet,teams').split(',').map((p) => p.trim() as SimPlatform);
}
