/**
 * What recording a meeting's audio costs: the page's capture and Opus encoding by MediaRecorder
 * (services/meeting-session/src/recording/page-capture.ts), the worker's WebM demuxing, Ogg muxing
 * and the appends to transcript-store (webm-batches.ts, webm.ts, recorder.ts, ogg.ts,
 * transcript-store's recordings/), measured through the
 * whole product as in e2e-latency.bench.ts: the real stack in this process, the real puppeteer
 * drivers in real Chromium against the Meet / Teams simulator, a local callback receiver.
 *
 * Each phase runs `meetingsPerPhase` meetings at once (Meet and Teams alternating, lobby off) with
 * `recording: "audio"` or `recording: "none"`; in each a participant talks aloud with the
 * simulator's `say` (espeak-ng speech over WebRTC into the bot's page, the words shown as captions
 * growing in step with the sound): a sentence, a pause of 1.5-3.5 s, the next sentence, the same
 * script in both kinds of phase. Once every meeting is live and has talked for a warm-up, a window
 * of `liveSeconds` is measured (support/meeting-phases.ts runs the phases):
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
  startWorld,
  type StartedMeeting,
  type Token,
  type World,
} from '../e2e/support/world.js';
import type { ReceivedCallback } from '../support/callback-receiver.js';
import { SPEECH_LEAD_MS, VOICES, type SimPlatform } from '../simulators/index.js';
import { fmt, latencyRow, mean, median, percentile, sorted } from './stats.js';
import { clockAudio, clockRates, type AudioClock } from './support/audio-clock.js';
import { runBounded } from './support/bounded-run.js';
import { newMeetingsPhase, PhasePlan, untilLive, type MeetingsPhase } from './support/meeting-phases.js';
import { audioObservedDrivers } from './support/observed-drivers.js';
import { compareKinds, MiB, phaseHeadline, phasesByKind, windowCpuLine } from './support/phase-report.js';
import { signedWith } from './support/signed-callback.js';
import { SENTENCES, synthesizeScript } from './support/spoken-script.js';
import { captionArrived, sayWithTimedCaptions } from './support/timed-speech.js';

type Mode = 'audio' | 'none';

const PLAN = PhasePlan.fromArgv<Mode>(['audio', 'none'], 'none,audio,audio,none');
const MB = 1e6;

const SPEAKER = 'Alice Example';
const VOICE = VOICES[0];
/** Pauses after each sentence (ms), the same sequence in every phase. */
const PAUSES = [2_500, 1_500, 3_500, 2_000, 3_000, 1_800, 2_800, 2_200];

interface Phase extends MeetingsPhase<Mode> {
  /** Audio batches: lag behind capture, per meeting counts, the most tracks seen. */
  lagMs: number[];
  batches: Map<string, number>;
  tracks: Map<string, number>;
  /** Per meeting: how fast its page's batches came against the wall clock. */
  clock: Map<string, AudioClock>;
  /** Seconds of audio the batches carried while talking, all meetings together. */
  audioS: number;
  /** performance.now() of each meeting's `live` callback and of its stop request. */
  liveAt: Map<string, number>;
  stopAt: Map<string, number>;
  /** callS: from the meeting's `live` to its stop request, the wall time the file should about cover. */
  saved: Array<{ meetingId: string; bytes: number; durationMs: number; status: string; callS: number }>;
}

let phase: Phase | null = null;
let token: Token | null = null;

function onCallback(c: ReceivedCallback): void {
  if (!phase || c.eventType !== 'caption_partial' || !token) return;
  if (signedWith(token.signingSecret, c, phase))
    captionArrived(phase, c, String((c.json as EventEnvelope).payload.text));
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
  clockAudio(phase.clock, meetingId, now, durationUs / 1000);
  phase.batches.set(meetingId, (phase.batches.get(meetingId) ?? 0) + 1);
  phase.tracks.set(meetingId, Math.max(phase.tracks.get(meetingId) ?? 0, batch.tracks));
  phase.audioS += durationUs / 1e6;
}

/** The real driver factory, each audio batch observed on its way to the actor. */
const withAudioObserved = (real: DriverFactory) =>
  audioObservedDrivers(real, (meetingId, actor) => ({
    audio: (batch) => {
      onAudio(meetingId, batch);
      actor.audio(batch);
    },
  }));

/** Starts one meeting and waits until it is live with captions on; throws with what went wrong. */
async function join(world: World, p: Phase, platform: SimPlatform, i: number): Promise<StartedMeeting> {
  const m = await world.start(platform, {
    title: `recording ${p.mode} ${i}`,
    meeting: { lobby: false },
    request: { recording: p.mode },
  });
  m.sim.join(SPEAKER);
  p.liveAt.set(m.meetingId, (await untilLive(world, m, (bot) => bot.captionsOn)).receivedAt);
  return m;
}

async function runPhase(world: World, mode: Mode): Promise<Phase> {
  const p: Phase = {
    ...newMeetingsPhase(mode),
    lagMs: [],
    batches: new Map(),
    tracks: new Map(),
    clock: new Map(),
    audioS: 0,
    liveAt: new Map(),
    stopAt: new Map(),
    saved: [],
  };
  phase = p;
  await PLAN.join(p, (platform, i) => join(world, p, platform, i));
  if (p.meetings.length > 0) {
    // One speaker says the script from the meeting's own place in it, each sentence's words shown as captions.
    await PLAN.talkMeasureAndStop(world, p, {
      say: (m, index, k) => sayWithTimedCaptions(p, m, SPEAKER, VOICE, SENTENCES[(index + k) % SENTENCES.length]),
      pauseMs: (index, k) => PAUSES[(index + k) % PAUSES.length],
      stopping: (m) => p.stopAt.set(m.meetingId, performance.now()),
    });
    collectSaved(world, p);
  }
  phase = null;
  return p;
}

/** Each meeting's `recording_saved`: its file's size and length against the time from live to stop. */
function collectSaved(world: World, p: Phase): void {
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
    } else if (p.mode === 'audio') console.log(`   ${m.meetingId}: no recording_saved callback`);
  }
}

/**
 * How fast each page produced audio against the wall clock between its first and last batch.
 * Below 1 the page's audio graph was starved of CPU: it captured and encoded only that share of
 * the meeting, so the CPU it cost is understated and the recorder filled the rest of the file with
 * silence.
 */
const pageRates = (p: Phase) => clockRates(p.clock);

function printPhase(p: Phase, n: number): void {
  const batches = [...p.batches.values()];
  console.log(phaseHeadline(p, n, 'recording', PLAN));
  console.log(windowCpuLine(p));
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
    const rates = sorted(pageRates(p));
    console.log(
      `   pages' audio clock against the wall's: median ${fmt(percentile(rates, 50), 2, 4)}, slowest ${fmt(rates[0] ?? NaN, 2, 4)} (1.00: real time)`,
    );
  }
}

async function main(world: World): Promise<void> {
  const speechMs = await synthesizeScript([VOICE]);
  const pauseMs = mean(PAUSES);
  console.log(
    `recording bench: ${PLAN.count} meetings per phase (Meet and Teams alternating), phases ${PLAN.phases.join(', ')}, ` +
      `${PLAN.liveS} s window each; a sentence of ${(speechMs / 1000).toFixed(1)} s on average then a pause of ${(pauseMs / 1000).toFixed(1)} s ` +
      `(sound ~${((100 * speechMs) / (speechMs + pauseMs + SPEECH_LEAD_MS)).toFixed(0)}% of the time); ${os.cpus().length} CPUs`,
  );

  const done = (await PLAN.run((mode) => runPhase(world, mode), printPhase)).map(({ p }) => p);

  const [withRec, without] = phasesByKind(
    done,
    ['audio', 'none'],
    'recording vs none',
    ", latencies and the page's audio clock suffer",
  );
  if (withRec.length === 0 || without.length === 0) {
    console.log('   no comparison: a kind of phase has no live meetings');
    return;
  }
  const kinds = compareKinds(withRec, without);
  const slow = sorted(withRec.flatMap(pageRates));
  if (slow.length === 0 || percentile(slow, 50) < 0.95)
    console.log(
      `   NOT VALID: the pages' audio ran at ${fmt(percentile(slow, 50), 2, 4)} of real time (median), so the pages captured and encoded ` +
        `only that share of the meetings: the CPU and size figures understate recording, the lag is the audio clock falling behind ` +
        `(the machine is short of CPU for ${PLAN.count} meetings: run fewer per phase, the second argument)`,
    );

  const cpu = kinds.cores.all;
  console.log(
    `   CPU per meeting added by capture and encoding ${fmt(cpu.perMeeting, 4, 8)} cores   ` +
      `(${fmt(cpu.first, 3, 5)} vs ${fmt(cpu.second, 3, 5)} cores for all; goal < 0.02)`,
  );
  console.log(
    `      of which Chromium ${fmt(kinds.cores.chromium.perMeeting, 4, 8)}, this process (muxing, bus, storage) ${fmt(kinds.cores.node.perMeeting, 4, 8)}`,
  );
  const { pss } = kinds;
  console.log(
    `   PSS per meeting added                           ${fmt(pss.perMeeting / MiB, 2, 8)} MiB    ` +
      `(${fmt(pss.first / MiB, 0, 5)} vs ${fmt(pss.second / MiB, 0, 5)} MiB Chromium in all; goal < 8 MB)`,
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
  const world = await startWorld(PLAN.worldEnv(), { receiver: { onCallback }, wrapDrivers: withAudioObserved });
  token = world.token;
  await runBounded(world, PLAN.deadlineMs(), main);
}
