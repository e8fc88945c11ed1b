/**
 * What recording a meeting's audio costs: the page's capture and Opus encoding by MediaRecorder
 * (services/meeting-session/src/recording/page-capture.ts), the worker's WebM demuxing, Ogg muxing
 * and the appends to transcript-store (webm-batches.ts, webm.ts, recorder.ts, ogg.ts,
 * transcript-store's recordings/), measured through the
 * whole product as in e2e-latency.bench.ts: the real stack in this process, the real puppeteer
 * drivers in real Chromium against the Meet / Teams simulator, a local callback receiver.
 *
 * Each phase runs COUNT meetings at once (Meet and Teams alternating, lobby off) with
 * `recording: "audio"` or `recording: "none"`; in each a participant talks aloud with the
 * simulator's `say` (espeak-ng speech over WebRTC into the bot's page, the words shown as captions
 * growing in step with the sound): a sentence, a pause of 1.5-3.5 s, the next sentence, the same
 * script in both kinds of phase. Once every meeting is live and has talked for WARMUP_MS, a window
 * of LIVE_S seconds is measured:
 *
 * - CPU: utime + stime (/proc/<pid>/stat) summed over this process (every service, the simulator)
 *   and every Chromium process it launched, from the window's start to its end (a process gone
 *   during the window counts up to its last sample). Cores = CPU seconds / window seconds.
 * - Memory: PSS (/proc/<pid>/smaps_rollup) summed over the Chromium processes, sampled during the
 *   window; the phase's figure is the median sample.
 * - Chunk lag: each `listener.audio(batch)` the real driver makes (observed by wrapping the driver
 *   factory; a batch is one MediaRecorder slice, demuxed) is timed against the capture of the
 *   batch's last sample:
 *   `Date.now() - (epochMs + (timestampsUs[last] + durationsUs[last])/1000)`, the page's and this
 *   process's clocks being the same machine's. Also how fast each page produced audio against the
 *   wall clock (audio carried / wall time between its first and last batch): below 1 the page's
 *   audio graph was starved of CPU and captured only that share of the meeting, and the comparison
 *   is flagged NOT VALID.
 * - Caption latency: simulator caption change -> signed `caption_partial` at the receiver (one
 *   clock, performance.now()).
 * - Bytes per hour: each `recording_saved` callback's bytes / durationMs (the recording's timeline
 *   runs from admission to leaving, talk and pauses alike), in MB of 10^6 bytes.
 *
 * The figures are differences between phases run in this same process, never against a fixed
 * number: this machine's speed drifts by tens of percent between runs. By default the phases run
 * none, audio, audio, none (ABBA), so a drift that is linear over the run cancels out of the
 * means; the per-phase rows show how much it moved.
 *
 * Goals, per meeting recorded: < 0.02 cores added; < 8 MB PSS added; 12-15 MB/h of recording
 * (Opus 32 kbit/s is 14.4 MB/h while sound flows); chunk arrival p99 < 2.5 s behind real time;
 * caption latency unchanged by recording.
 *
 * `npx tsx test/bench/recording.bench.ts [liveSeconds=60] [meetingsPerPhase=10] [phases=none,audio,audio,none]`
 */
import os from 'node:os';
import type { EventEnvelope } from '@notetaker/contracts';
import type { DriverFactory } from '../../services/meeting-session/src/drivers/index.js';
import type { AudioBatch } from '../../services/meeting-session/src/recording/page-capture.js';
import {
  chromiumMissing,
  payloadOf,
  sleep,
  startWorld,
  type StartedMeeting,
  type Token,
  type World,
} from '../e2e/support/world.js';
import { verifySignature, type ReceivedCallback } from '../support/callback-receiver.js';
import { SPEECH_LEAD_MS, VOICES, type SimPlatform } from '../simulators/index.js';
import { synthesize } from '../simulators/speech.js';
import { fmt, latencyRow, mean, median, percentile, sorted } from './stats.js';
import { measureWindow } from './support/measured-window.js';
import { sayWithTimedCaptions } from './support/timed-speech.js';
import { observedDrivers } from './support/observed-drivers.js';
import { runBounded } from './support/bounded-run.js';

type Mode = 'audio' | 'none';

const LIVE_S = Number(process.argv[2] ?? 60);
const COUNT = Number(process.argv[3] ?? 10);
const PHASES = (process.argv[4] ?? 'none,audio,audio,none').split(',').map((p): Mode => {
  if (p !== 'audio' && p !== 'none') throw new Error(`a phase is audio or none, not ${p}`);
  return p;
});
/** Talking before the window opens: the pages' audio paths and the recorders are running by then. */
const WARMUP_MS = 8_000;
const SAMPLE_MS = 2_500;
const JOIN_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;
const MiB = 1024 * 1024;
const MB = 1e6;

const SPEAKER = 'Alice Example';
const VOICE = VOICES[0];
/** Plain words (no capitals or punctuation), so the caption text a partial carries is the text shown. */
const SENTENCES = [
  'good morning everyone thanks for joining the weekly sync',
  'we should ship the release on friday after the review',
  'the tests pass on every platform except the old tablet',
  'can someone take the action item on the login page',
  'i think the new dashboard is ready for the customers',
  'the budget for next quarter is still under discussion',
  'let us move the design review to tuesday afternoon',
  'marketing wants the screenshots by the end of the week',
  'the database migration took about twenty minutes last night',
  'we saw fewer support tickets after the last update',
  'please add your notes to the shared document',
  'the mobile team is blocked on the payment provider',
  'our latency goal is two hundred milliseconds at the edge',
  'i will follow up with legal about the new contract',
  'the onboarding flow needs one more round of testing',
  'do we have a date for the security audit',
  'the interns start on monday and need laptops',
  'let us keep the demo short and focus on search',
  'the translation files came back from the agency',
  'we agreed to drop the old export format next month',
  'the cache hit rate went up to ninety percent',
  'someone should update the runbook for the pager',
  'the partner asked for a sandbox account again',
  'that is all from me for today thank you',
];
/** Pauses after each sentence (ms), the same sequence in every phase. */
const PAUSES = [2_500, 1_500, 3_500, 2_000, 3_000, 1_800, 2_800, 2_200];

interface Phase {
  mode: Mode;
  meetings: StartedMeeting[];
  failures: string[];
  /** `${meetingId} ${text}` -> when the simulator showed it. */
  pending: Map<string, number>;
  shown: number;
  captionMs: number[];
  badSignatures: number;
  /** Audio batches: lag behind capture, per meeting counts, the most tracks seen. */
  lagMs: number[];
  batches: Map<string, number>;
  tracks: Map<string, number>;
  /** Per meeting: when its first and last batch arrived (epoch ms) and the audio (ms) the batches after the first carried. */
  clock: Map<string, { firstAt: number; lastAt: number; audioMs: number }>;
  /** Seconds of audio the batches carried, all meetings together, and the wall time they cover. */
  audioS: number;
  talking: boolean;
  talkingSince: number;
  talkingS: number;
  /** performance.now() of each meeting's `live` callback and of its stop request. */
  liveAt: Map<string, number>;
  stopAt: Map<string, number>;
  said: number;
  sayErrors: number;
  /** Measured window. */
  windowS: number;
  cpuChromiumS: number;
  cpuNodeS: number;
  pssBytes: number[];
  processes: number;
  steal: string;
  /** Cores the rest of the machine (other processes than ours) kept busy during the window. */
  othersCores: number;
  load: [number, number];
  /** callS: from the meeting's `live` to its stop request, the wall time the file should about cover. */
  saved: Array<{ meetingId: string; bytes: number; durationMs: number; status: string; callS: number }>;
}

let phase: Phase | null = null;
let token: Token | null = null;

function onCallback(c: ReceivedCallback): void {
  if (!phase || c.eventType !== 'caption_partial' || !token) return;
  if (!verifySignature(token.signingSecret, c.rawBody, String(c.headers['x-service-signature']))) {
    phase.badSignatures++;
    return;
  }
  const key = `${c.meetingId} ${String((c.json as EventEnvelope).payload.text)}`;
  const shownAt = phase.pending.get(key);
  if (shownAt === undefined) return;
  phase.pending.delete(key);
  phase.captionMs.push(c.receivedAt - shownAt);
}

/**
 * When the batch's last sample was captured (epoch ms): the last packet's timestamp plus its
 * duration on the page's timeline (the packets need not be back to back: a stalled page leaves gaps).
 */
function lastSampleAt(batch: AudioBatch): number {
  const last = batch.durationsUs.length - 1;
  return batch.epochMs + (batch.timestampsUs[last] + batch.durationsUs[last]) / 1000;
}

function onAudio(meetingId: string, batch: AudioBatch): void {
  const now = Date.now();
  if (!phase?.talking) return;
  const durationUs = batch.durationsUs.reduce((a, b) => a + b, 0);
  phase.lagMs.push(now - lastSampleAt(batch));
  const clock = phase.clock.get(meetingId);
  if (clock) Object.assign(clock, { lastAt: now, audioMs: clock.audioMs + durationUs / 1000 });
  else phase.clock.set(meetingId, { firstAt: now, lastAt: now, audioMs: 0 });
  phase.batches.set(meetingId, (phase.batches.get(meetingId) ?? 0) + 1);
  phase.tracks.set(meetingId, Math.max(phase.tracks.get(meetingId) ?? 0, batch.tracks));
  phase.audioS += durationUs / 1e6;
}

/** The real driver factory, each audio batch observed on its way to the actor. */
const withAudioObserved = (real: DriverFactory) =>
  observedDrivers(real, (target, actor) => ({
    audio: (batch) => {
      onAudio(target.meetingId, batch);
      actor.audio(batch);
    },
    audioFailed: (detail) => {
      console.log(`   ${target.meetingId}: audio capture failed: ${detail}`);
      actor.audioFailed(detail);
    },
  }));

/** One sentence aloud, its words shown as a caption turn in step with the sound (as say's own captions), each change timed. */
async function sayTimed(p: Phase, m: StartedMeeting, text: string): Promise<void> {
  await sayWithTimedCaptions(m.sim, SPEAKER, VOICE, text, (step) => {
    p.pending.set(`${m.meetingId} ${step}`, performance.now());
    p.shown++;
  });
  p.said++;
}

/** Sentence, pause, sentence... until `until` (epoch ms); meeting `index` starts at its own place in the script. */
async function talk(p: Phase, m: StartedMeeting, index: number, until: () => number): Promise<void> {
  await sleep((index * 3_000) / COUNT);
  for (let i = index; Date.now() < until(); i++) {
    try {
      await sayTimed(p, m, SENTENCES[i % SENTENCES.length]);
    } catch (err) {
      p.sayErrors++;
      console.log(`   ${m.meetingId}: say failed: ${(err as Error).message}`);
      return;
    }
    await sleep(Math.min(PAUSES[i % PAUSES.length], Math.max(0, until() - Date.now())));
  }
}

/** Starts one meeting and waits until it is live with captions on; throws with what went wrong. */
async function join(world: World, p: Phase, platform: SimPlatform, i: number): Promise<StartedMeeting> {
  const mode = p.mode;
  const m = await world.start(platform, {
    title: `recording ${mode} ${i}`,
    meeting: { lobby: false },
    request: { recording: mode },
  });
  m.sim.join(SPEAKER);
  try {
    await m.sim.waitForBot((bot) => bot.captionsOn, JOIN_TIMEOUT_MS);
    p.liveAt.set(m.meetingId, (await world.waitForStatus(m.meetingId, 'live', JOIN_TIMEOUT_MS)).receivedAt);
  } catch (err) {
    await world.stop(m.meetingId).catch(() => undefined);
    throw new Error(`${m.meetingId}: ${(err as Error).message}`);
  }
  return m;
}

async function runPhase(world: World, mode: Mode): Promise<Phase> {
  const p: Phase = {
    mode,
    meetings: [],
    failures: [],
    pending: new Map(),
    shown: 0,
    captionMs: [],
    badSignatures: 0,
    lagMs: [],
    batches: new Map(),
    tracks: new Map(),
    audioS: 0,
    clock: new Map(),
    talking: false,
    talkingSince: 0,
    talkingS: 0,
    liveAt: new Map(),
    stopAt: new Map(),
    said: 0,
    sayErrors: 0,
    windowS: 0,
    cpuChromiumS: 0,
    cpuNodeS: 0,
    pssBytes: [],
    processes: 0,
    steal: '',
    othersCores: 0,
    load: [0, 0],
    saved: [],
  };
  phase = p;
  const platforms: SimPlatform[] = Array.from({ length: COUNT }, (_, i) => (i % 2 === 0 ? 'google_meet' : 'teams'));
  const joined = await Promise.allSettled(platforms.map((platform, i) => join(world, p, platform, i)));
  for (const [i, result] of joined.entries()) {
    if (result.status === 'fulfilled') p.meetings.push(result.value);
    else {
      p.failures.push(`${platforms[i]}: ${(result.reason as Error).message}`);
      console.log(`   ${mode} meeting ${i} (${platforms[i]}) failed to go live: ${(result.reason as Error).message}`);
    }
  }
  if (p.meetings.length === 0) return p;

  // Talk from now until the window closes; measure the window after the warm-up.
  let windowEnd = Number.POSITIVE_INFINITY;
  p.talking = true;
  p.talkingSince = performance.now();
  const talking = Promise.all(p.meetings.map((m, i) => talk(p, m, i, () => windowEnd)));
  await sleep(WARMUP_MS);

  windowEnd = Date.now() + LIVE_S * 1000;
  const { machineBusyS: busyS, ...measured } = await measureWindow(windowEnd, SAMPLE_MS);
  Object.assign(p, measured);
  p.othersCores = busyS / p.windowS - cores(p);

  // The last sentences end (a few seconds at most), then the bots leave.
  await Promise.race([talking, sleep(20_000)]);
  p.talking = false;
  p.talkingS = (performance.now() - p.talkingSince) / 1000;
  await sleep(1_500); // the last partials arrive
  const stopped = await Promise.allSettled(
    p.meetings.map(async (m) => {
      p.stopAt.set(m.meetingId, performance.now());
      await world.stop(m.meetingId);
      await world.waitForStatus(m.meetingId, 'ended', STOP_TIMEOUT_MS);
    }),
  );
  for (const [i, result] of stopped.entries())
    if (result.status === 'rejected')
      console.log(`   ${p.meetings[i].meetingId} did not end: ${(result.reason as Error).message}`);
  for (const m of p.meetings) {
    const saved = world.callbacks(m.meetingId).find((c) => c.eventType === 'recording_saved');
    if (saved) {
      const payload = payloadOf(saved);
      p.saved.push({
        meetingId: m.meetingId,
        bytes: Number(payload.bytes),
        durationMs: Number(payload.durationMs),
        status: String(payload.status),
        callS: ((p.stopAt.get(m.meetingId) ?? NaN) - (p.liveAt.get(m.meetingId) ?? NaN)) / 1000,
      });
    } else if (mode === 'audio') console.log(`   ${m.meetingId}: no recording_saved callback`);
  }
  phase = null;
  return p;
}

/**
 * How fast each page produced audio against the wall clock between its first and last batch: the
 * audio the later batches carried over the wall time between their arrivals (1: real time; the
 * page's own epoch estimate plays no part). Below 1 the page's audio graph was starved of CPU: it captured and encoded only
 * that share of the meeting, so the CPU it cost is understated and the recorder filled the rest of
 * the file with silence.
 */
const clockRates = (p: Phase) =>
  [...p.clock.values()].filter((c) => c.lastAt - c.firstAt > 5_000).map((c) => c.audioMs / (c.lastAt - c.firstAt));

const cores = (p: Phase) => (p.cpuChromiumS + p.cpuNodeS) / p.windowS;

function printPhase(p: Phase, n: number): void {
  const batches = [...p.batches.values()];
  console.log(
    `phase ${n} recording=${p.mode}: ${p.meetings.length}/${COUNT} live${p.failures.length ? ` (${p.failures.length} failed)` : ''}, ` +
      `${p.said} sentences said${p.sayErrors ? ` (${p.sayErrors} say errors)` : ''}, window ${p.windowS.toFixed(1)} s, ` +
      `load ${p.load[0].toFixed(2)} -> ${p.load[1].toFixed(2)}, other processes ${p.othersCores.toFixed(2)} cores, ${p.steal}`,
  );
  console.log(
    `   CPU over the window: Chromium ${fmt(p.cpuChromiumS, 1, 5)} s + this process ${fmt(p.cpuNodeS, 1, 5)} s = ${fmt(cores(p), 3, 5)} cores; ` +
      `Chromium PSS median ${fmt(median(p.pssBytes) / MiB, 0, 5)} MiB (${p.pssBytes.length} samples, ${p.processes} processes)`,
  );
  console.log(
    `   ${latencyRow('caption change -> signed caption_partial', p.captionMs).trimStart()}; ${p.shown} shown, ${p.pending.size} coalesced or lost, ${p.badSignatures} bad signatures`,
  );
  if (p.mode === 'audio') {
    console.log(`   ${latencyRow('audio batch: last sample captured -> worker has it', p.lagMs)}`);
    console.log(
      `   audio batches while talking: ${batches.reduce((a, b) => a + b, 0)} from ${batches.length} meetings ` +
        `(${batches.length ? Math.min(...batches) : 0}-${batches.length ? Math.max(...batches) : 0} each), ` +
        `remote tracks captured per page ${p.meetings.map((m) => `${m.platform === 'teams' ? 'T' : 'M'}${p.tracks.get(m.meetingId) ?? 0}`).join(' ')}; recording_saved ${p.saved.length}/${p.meetings.length}`,
    );
    // Well below 100%: the pages' audio clocks ran slower than the wall's (a starved renderer), or audio was lost.
    const fileS = p.saved.reduce((a, s) => a + s.durationMs / 1000, 0);
    const callS = p.saved.reduce((a, s) => a + s.callS, 0);
    console.log(
      `   recordings hold ${fileS.toFixed(0)} s of audio for ${callS.toFixed(0)} s from live to stop (${((100 * fileS) / callS).toFixed(0)}%); ` +
        `batches carried ${p.audioS.toFixed(0)} s while talking (${p.talkingS.toFixed(0)} s x ${p.meetings.length} meetings)`,
    );
    const rates = sorted(clockRates(p));
    console.log(
      `   pages' audio clock against the wall's: median ${fmt(percentile(rates, 50), 2, 4)}, slowest ${fmt(rates[0] ?? NaN, 2, 4)} (1.00: real time)`,
    );
  }
}

async function main(world: World): Promise<void> {
  // Every sentence's WAV made before any phase, so espeak-ng runs in none of the windows.
  const speeches = await Promise.all(SENTENCES.map((s) => synthesize(VOICE, s)));
  const speechMs = mean(speeches.map((s) => s.durationMs));
  const pauseMs = mean(PAUSES);
  console.log(
    `recording bench: ${COUNT} meetings per phase (Meet and Teams alternating), phases ${PHASES.join(', ')}, ` +
      `${LIVE_S} s window each; a sentence of ${(speechMs / 1000).toFixed(1)} s on average then a pause of ${(pauseMs / 1000).toFixed(1)} s ` +
      `(sound ~${((100 * speechMs) / (speechMs + pauseMs + SPEECH_LEAD_MS)).toFixed(0)}% of the time); ${os.cpus().length} CPUs`,
  );

  const done: Phase[] = [];
  for (const [i, mode] of PHASES.entries()) {
    const p = await runPhase(world, mode);
    done.push(p);
    printPhase(p, i + 1);
    await sleep(3_000); // the contexts of the phase close before the next one starts
  }

  const of = (mode: Mode) => done.filter((p) => p.mode === mode && p.meetings.length > 0 && p.windowS > 0);
  const [withRec, without] = [of('audio'), of('none')];
  console.log('\nrecording vs none (means over the phases of each kind):');
  if (withRec.length === 0 || without.length === 0) {
    console.log('   no comparison: a kind of phase has no live meetings');
    return;
  }
  const live = (ps: Phase[]) => mean(ps.map((p) => p.meetings.length));
  const [nWith, nWithout] = [live(withRec), live(without)];
  const unequal = nWith !== nWithout;
  if (unequal)
    console.log(
      `   unequal phases (${nWith} vs ${nWithout} live meetings on average): each kind is divided by its own count, fixed costs included`,
    );
  const others = mean(done.filter((p) => p.windowS > 0).map((p) => p.othersCores));
  if (others > 0.25)
    console.log(
      `   other processes kept ${others.toFixed(2)} of ${os.cpus().length} cores busy during the windows on average: ` +
        `the meetings were short of CPU, latencies and the page's audio clock suffer`,
    );
  const slow = sorted(withRec.flatMap(clockRates));
  if (slow.length === 0 || percentile(slow, 50) < 0.95)
    console.log(
      `   NOT VALID: the pages' audio ran at ${fmt(percentile(slow, 50), 2, 4)} of real time (median), so the pages captured and encoded ` +
        `only that share of the meetings: the CPU and size figures understate recording, the lag is the audio clock falling behind ` +
        `(the machine is short of CPU for ${COUNT} meetings: run fewer per phase, the second argument)`,
    );
  const perMeeting = (a: number, b: number) => (unequal ? a / nWith - b / nWithout : (a - b) / nWith);

  const coresWith = mean(withRec.map(cores));
  const coresWithout = mean(without.map(cores));
  console.log(
    `   CPU per meeting added by capture and encoding ${fmt(perMeeting(coresWith, coresWithout), 4, 8)} cores   ` +
      `(${fmt(coresWith, 3, 5)} vs ${fmt(coresWithout, 3, 5)} cores for all; goal < 0.02)`,
  );
  const chromiumWith = mean(withRec.map((p) => p.cpuChromiumS / p.windowS));
  const chromiumWithout = mean(without.map((p) => p.cpuChromiumS / p.windowS));
  const nodeWith = mean(withRec.map((p) => p.cpuNodeS / p.windowS));
  const nodeWithout = mean(without.map((p) => p.cpuNodeS / p.windowS));
  console.log(
    `      of which Chromium ${fmt(perMeeting(chromiumWith, chromiumWithout), 4, 8)}, this process (muxing, bus, storage) ${fmt(perMeeting(nodeWith, nodeWithout), 4, 8)}`,
  );
  const pssWith = mean(withRec.map((p) => median(p.pssBytes)));
  const pssWithout = mean(without.map((p) => median(p.pssBytes)));
  console.log(
    `   PSS per meeting added                           ${fmt(perMeeting(pssWith, pssWithout) / MiB, 2, 8)} MiB    ` +
      `(${fmt(pssWith / MiB, 0, 5)} vs ${fmt(pssWithout / MiB, 0, 5)} MiB Chromium in all; goal < 8 MB)`,
  );
  const saved = withRec.flatMap((p) => p.saved).filter((s) => s.durationMs > 0);
  const perHour = sorted(saved.map((s) => ((s.bytes / s.durationMs) * 3_600_000) / MB));
  const statuses = [...new Set(saved.map((s) => s.status))].join(', ');
  console.log(
    `   recording size                                  ${fmt(percentile(perHour, 50), 2, 8)} MB/h median, ` +
      `${fmt(perHour[0] ?? NaN, 2, 5)}-${fmt(perHour.at(-1) ?? NaN, 2, 5)} MB/h (${saved.length} recordings, ` +
      `${(mean(saved.map((s) => s.durationMs)) / 1000).toFixed(0)} s each on average, ${statuses || 'none'}; expected ~12-15 MB/h)`,
  );
  console.log(
    `   ${latencyRow(
      'chunk arrival behind real time (goal p99 < 2.5 s)',
      withRec.flatMap((p) => p.lagMs),
    )}`,
  );
  console.log(
    `   ${latencyRow(
      'caption latency with recording',
      withRec.flatMap((p) => p.captionMs),
    )}`,
  );
  console.log(
    `   ${latencyRow(
      'caption latency without recording',
      without.flatMap((p) => p.captionMs),
    )}`,
  );
  const leaked = without.flatMap((p) => [...p.batches.keys()]).length;
  if (leaked) console.log(`   unexpected: ${leaked} meetings without recording delivered audio batches`);
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
} else {
  const world = await startWorld(
    {
      MAX_MEETINGS_PER_WORKER: String(Math.max(10, COUNT)),
      // The world's 90 s cap would end the meetings mid-window.
      MAX_MEETING_DURATION_MS: String((LIVE_S * 1000 + WARMUP_MS) * 3 + 120_000),
    },
    { receiver: { onCallback }, wrapDrivers: withAudioObserved },
  );
  token = world.token;
  const deadlineMs = PHASES.length * (2 * JOIN_TIMEOUT_MS + WARMUP_MS + LIVE_S * 1000 + STOP_TIMEOUT_MS + 60_000);
  await runBounded(world, deadlineMs, main);
}
