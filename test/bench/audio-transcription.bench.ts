/**
 * What transcribing meetings from their audio costs and how late and how right its words are
 * (issue #37; services/meeting-session/src/transcription), against the caption path, measured
 * through the whole product as recording.bench.ts does: the real stack in this process, the real
 * puppeteer drivers in real Chromium against the Meet / Teams simulator, a local callback
 * receiver, and a real speech engine (test/support/speech-engine: pocketsphinx behind OpenAI's
 * `/v1/audio/transcriptions`, with a grammar of the script's sentences; it knows nothing of who
 * says what when) passed to the stack by STT_BASE_URL / STT_API_KEY, STT_CONCURRENCY=8.
 *
 * Each phase runs `meetingsPerPhase` meetings at once (Meet and Teams alternating, or the platforms
 * BENCH_PLATFORMS lists, lobby off), either
 * - `captions`: start with `transcription: "captions"`; each sentence's words shown as a caption
 *   turn growing in step with the sound (as recording.bench.ts), or
 * - `audio`: the simulated meeting has `captionsAllowed: false` (the host turned captions off),
 *   start with `transcription: "audio"`: every word comes from the speech engine.
 * In each meeting two participants take turns saying sentences aloud (`say`: espeak-ng over
 * WebRTC into the bot's page; male voices, which the test engine hears best), a pause of 1.5-3 s
 * after each, the same script in both kinds of phase. Once every meeting is live and has talked
 * for a warm-up, a window of `liveSeconds` is measured (support/meeting-phases.ts runs the phases):
 *
 * - CPU: utime + stime (/proc/<pid>/stat) of this process (every service, the simulator, the
 *   engine's HTTP front) and every Chromium process, over the window; cores = CPU s / window s.
 *   The engine's decoding (ffmpeg and pocketsphinx, child processes of this one: their
 *   cutime + cstime) is shown apart and left out of the comparison: a hosted engine does it
 *   elsewhere. On this machine it still competes for the same two cores.
 * - Memory: PSS (/proc/<pid>/smaps_rollup) summed over the Chromium processes, sampled during
 *   the window; the phase's figure is the median sample.
 * - Truth: the simulator's utterances; the sound of each sent to the bot's page (by the
 *   simulator's media server) is its `plays` entry for the bot: [startedAt, startedAt + durationMs]
 *   (epoch ms; the media server's clock and this process's are the same machine's). The media
 *   server's Chromium is not among the Chromium processes measured.
 * - Matching: a `segment_finalized` and a group of `caption_partial` (one `captionId`) with
 *   `source: "audio"` carry the utterance's start as heard (`timestamp`, the voice-activity
 *   start); each is given to the utterance of its meeting whose sound started nearest, within 1 s.
 * - Final latency: the final's arrival at the receiver - the end of the utterance's sound. Minus
 *   the engine's time: per request, the engine log's request whose text is the final's, sent after
 *   the sound ended and answered before the final arrived, the latest such (the partials of the
 *   same utterance went before it); "ambiguous" counts finals for which another meeting said the
 *   same sentence ending within 3 s (meetings start at different places in the script to make that
 *   rare). Also minus the median of those requests' `engineMs`. The split this gives (matched
 *   requests are finals, the other answered ones partials) is checked against the product's own
 *   counters below.
 * - Partial latency, per word: word i of an utterance of n words is taken as spoken at
 *   startedAt + durationMs*(i+1)/n; its latency is the arrival of the utterance's first
 *   `caption_partial` whose words begin with words 0..i, minus that. Minus the engine's time: per
 *   request, the latest answered request with the partial's words, sent after the sound began and
 *   answered before the partial arrived (LocalAgreement shows the newest pass whole when it agrees
 *   with what was committed); and minus the median `engineMs` of all the phase's partial requests
 *   (biased when the engine is slow: the partials that beat their final were the fast ones). Words
 *   that no partial showed before the final (an utterance's last words, mostly) are counted
 *   apart, and a second row takes the earlier of partial and final.
 * - Where a final's time goes: end of sound -> its request at the engine (voice activity's 150 ms
 *   of pause before the final is sent, the PCM's way from the page, a wait for an engine slot) and
 *   the engine's answer -> `segment_finalized` at the receiver (the rest of the 300 ms pause when
 *   the engine answered first, transcript-store, event log, webhook).
 * - Sound lost before the tap: silences of 300 ms or more between speech on one track inside a
 *   sentence's sound (the script has none there), which voice activity would take for a pause.
 *   Finals that no utterance accounts for are listed with what came just before them.
 * - Cost: the engine log's requests and decoded audio seconds whose `at` lies in the window,
 *   per meeting-minute; split into finals (the matched requests) and partials (the rest), and
 *   against the product's own counters (meeting_transcription_requests_total and
 *   ..._audio_seconds_total by priority, from /metrics at the window's ends); and audio seconds
 *   sent over audio seconds spoken in the window.
 * - Word accuracy: per meeting, the words of its finals in order against the words of the
 *   utterances the bot heard: 1 - word error rate (word Levenshtein); utterances heard exactly;
 *   the share of matched utterances whose final names the right speaker.
 * - Caption latency (captions phases): simulator caption change -> signed `caption_partial`.
 *
 * The figures are differences between phases run in this same process, never against a fixed
 * number: this machine's speed drifts by tens of percent between runs. By default the phases run
 * captions, audio, audio, captions (ABBA).
 *
 * Goals (issue #37), the engine's time subtracted (per request): partial p50 < 1.0 s after the
 * word was spoken, final p50 < 0.5 s after the utterance's end. The engine's `engineMs` runs from
 * the request's body arriving to its answer; its HTTP front shares this process's event loop, so
 * on a busy machine it holds some waiting that a hosted engine's would not.
 *
 * `npx tsx test/bench/audio-transcription.bench.ts [liveSeconds=60] [meetingsPerPhase=10] [phases=captions,audio,audio,captions]`
 */
import os from 'node:os';
import type { EventEnvelope } from '@notetaker/contracts';
import type { DriverFactory } from '../../services/meeting-session/src/drivers/index.js';
import type { PcmChunk } from '../../services/meeting-session/src/recording/page-capture.js';
import { chromiumMissing, startWorld, type StartedMeeting, type Token, type World } from '../e2e/support/world.js';
import type { ReceivedCallback } from '../support/callback-receiver.js';
import { startSpeechEngine, type SpeechEngine } from '../support/speech-engine/index.js';
import { VOICES, type SimPlatform, type Voice } from '../simulators/index.js';
import { fmt, latencyRow, mean, median, percentile, sorted } from './stats.js';
import { reapedChildrenTicks, TICK_S } from './support/process-cpu.js';
import { wordsOf } from './support/audio-scoring.js';
import { audioObservedDrivers } from './support/observed-drivers.js';
import { runBounded } from './support/bounded-run.js';
import type { Heard, Mode, Phase, Said } from './support/audio-phase.js';
import {
  audioFigures,
  mergeAudio,
  printAudio,
  printProblems,
  SILENCE_MS,
  type AudioFigures,
} from './support/audio-figures.js';
import { clockAudio, clockRates } from './support/audio-clock.js';
import { benchPlatforms, measureInto, newMeetingsPhase, PhasePlan, untilLive } from './support/meeting-phases.js';
import { compareKinds, MiB, phaseHeadline, phasesByKind, windowCpuLine } from './support/phase-report.js';
import { signedWith } from './support/signed-callback.js';
import { SENTENCES, synthesizeScript } from './support/spoken-script.js';
import { captionArrived, sayWithTimedCaptions } from './support/timed-speech.js';

const PLAN = PhasePlan.fromArgv<Mode>(['captions', 'audio'], 'captions,audio,audio,captions');
const STT_CONCURRENCY = 8;
/** How far a heard utterance's start (voice activity) may lie from its sound's start to be matched. */
const MATCH_MS = 1_000;

const SPEAKERS = ['Adam Example', 'Bruno Example'];
/** The simulator's male voices: the test engine heard all of SENTENCES exactly in each of them. */
const MALE_VOICES: Voice[] = [VOICES[0], VOICES[2], VOICES[4]];
/** Speaker `k` of meeting `i`: the two speakers of a meeting have different voices. */
const voiceOf = (meeting: number, k: number) => MALE_VOICES[(meeting + k) % MALE_VOICES.length];
/** Pauses after each sentence (ms), the same sequence in every phase. */
const PAUSES = [2_500, 1_500, 3_000, 2_000, 2_800, 1_800, 2_200, 1_600];
/** Meetings start at different places in the script, so that two meetings rarely say the same sentence at once. */
const SCRIPT_STEP = Math.max(1, Math.floor(SENTENCES.length / PLAN.count));

let phase: Phase | null = null;
let token: Token | null = null;
let engine: SpeechEngine | null = null;

function onCallback(c: ReceivedCallback): void {
  if (!phase || !token || (c.eventType !== 'caption_partial' && c.eventType !== 'segment_finalized')) return;
  const at = Date.now();
  if (!signedWith(token.signingSecret, c, phase)) return;
  const payload = (c.json as EventEnvelope).payload as Record<string, unknown>;
  const source = String(payload.source);
  if (source !== phase.mode) phase.wrongSource++;
  const meetingId = String(c.meetingId);
  if (source === 'captions' && c.eventType === 'caption_partial') {
    captionArrived(phase, c, String(payload.text));
    return;
  }
  if (source !== 'audio') return;
  const heard: Heard = {
    at,
    text: String(payload.text ?? ''),
    speaker: String(payload.speaker ?? ''),
    startedAt: Date.parse(String(payload.timestamp)),
    captionId: String(payload.captionId ?? ''),
    untranscribed: payload.untranscribed !== undefined,
  };
  const into = c.eventType === 'caption_partial' ? phase.partials : phase.finals;
  into.set(meetingId, [...(into.get(meetingId) ?? []), heard]);
}

function onPcm(meetingId: string, chunk: PcmChunk): void {
  if (!phase?.talking) return;
  const now = Date.now();
  phase.pcmLagMs.push(now - chunk.endMs);
  // Base64 of 16-bit samples at 16 kHz: 3 characters are 2.25 bytes, 32 bytes a millisecond.
  const audioMs = (Buffer.byteLength(chunk.data, 'base64') / 2 / 16_000) * 1000;
  const key = `${meetingId} ${chunk.track}`;
  clockAudio(phase.pcmClock, key, now, audioMs);
  findSilences(phase, meetingId, key, chunk);
}

/** A 20 ms frame below this is silent (voice-activity.ts's absolute floor is -50 dB). */
const SILENT_DB = -45;
const silenceState = new Map<string, { quietMs: number; quietFrom: number; spoke: boolean }>();

/** Silences of SILENCE_MS or more between speech on a track, on the chunks' timeline (epoch ms). */
function findSilences(p: Phase, meetingId: string, key: string, chunk: PcmChunk): void {
  const bytes = Buffer.from(chunk.data, 'base64');
  const samples = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
  const frame = 320; // 20 ms at 16 kHz
  const state = silenceState.get(key) ?? { quietMs: 0, quietFrom: 0, spoke: false };
  silenceState.set(key, state);
  const frames = Math.floor(samples.length / frame);
  for (let f = 0; f < frames; f++) {
    let energy = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) energy += samples[i] * samples[i];
    const db = 10 * Math.log10(energy / frame / (32768 * 32768) + 1e-12);
    const at = chunk.endMs - (frames - f) * 20;
    if (db > SILENT_DB) {
      if (state.spoke && state.quietMs >= SILENCE_MS)
        p.silences.set(meetingId, [...(p.silences.get(meetingId) ?? []), { from: state.quietFrom, to: at }]);
      state.spoke = true;
      state.quietMs = 0;
    } else {
      if (state.quietMs === 0) state.quietFrom = at;
      state.quietMs += 20;
    }
  }
}

/** The real driver factory, each PCM chunk observed on its way to the actor. */
const withPcmObserved = (real: DriverFactory) =>
  audioObservedDrivers(real, (meetingId, actor) => ({
    pcm: (chunk) => {
      if (!('quiet' in chunk)) onPcm(meetingId, chunk);
      actor.pcm(chunk);
    },
  }));

/**
 * One sentence aloud by `speaker`. In a captions phase its words are shown as a caption turn in
 * step with the sound (as say's own captions), each change timed; in an audio phase captions are
 * off in the meeting and only the sound goes out.
 */
async function sayTimed(p: Phase, m: StartedMeeting, speaker: string, voice: Voice, text: string): Promise<void> {
  if (p.mode === 'captions') await sayWithTimedCaptions(p, m, speaker, voice, text);
  else await m.sim.say(speaker, text, { captions: false, voice });
}

/** Starts one meeting and waits until it is live (with captions on, in a captions phase); throws with what went wrong. */
async function join(world: World, p: Phase, platform: SimPlatform, i: number): Promise<StartedMeeting> {
  const m = await world.start(platform, {
    title: `transcription ${p.mode} ${i}`,
    meeting: { lobby: false, captionsAllowed: p.mode === 'captions' },
    request: { transcription: p.mode },
  });
  for (const speaker of SPEAKERS) m.sim.join(speaker);
  await untilLive(world, m, p.mode === 'captions' ? (bot) => bot.captionsOn : (bot) => bot.screen === 'in_call');
  return m;
}

async function scrapeMetrics(world: World): Promise<string> {
  try {
    const res = await fetch(`${world.t.baseUrl}/metrics`);
    return res.ok ? await res.text() : '';
  } catch {
    return '';
  }
}

/** The window, with the engine's decoding (this process's reaped children) apart and the product's counters at its ends. */
async function measureWithEngine(world: World, p: Phase, openWindow: () => number): Promise<void> {
  p.metrics[0] = await scrapeMetrics(world);
  const engineBefore = reapedChildrenTicks(process.pid) ?? 0;
  await measureInto(p, openWindow());
  p.cpuEngineS = ((reapedChildrenTicks(process.pid) ?? 0) - engineBefore) * TICK_S;
  p.othersCores -= p.cpuEngineS / p.windowS;
  p.metrics[1] = await scrapeMetrics(world);
}

async function runPhase(world: World, mode: Mode): Promise<Phase> {
  const p: Phase = {
    ...newMeetingsPhase(mode),
    wrongSource: 0,
    partials: new Map(),
    finals: new Map(),
    pcmLagMs: [],
    pcmClock: new Map(),
    silences: new Map(),
    requests: [],
    utterances: [],
    unheard: 0,
    cpuEngineS: 0,
    metrics: ['', ''],
  };
  phase = p;
  await PLAN.join(p, (platform, i) => join(world, p, platform, i));
  if (p.meetings.length > 0) {
    const logFrom = engine!.requests.length;
    // The two speakers take turns; meeting `index` starts at its own place in the script.
    await PLAN.talkMeasureAndStop(world, p, {
      say: (m, index, k) =>
        sayTimed(
          p,
          m,
          SPEAKERS[k % SPEAKERS.length],
          voiceOf(index, k % SPEAKERS.length),
          SENTENCES[(index * SCRIPT_STEP + k) % SENTENCES.length],
        ),
      pauseMs: (_index, k) => PAUSES[k % PAUSES.length],
      measure: (openWindow) => measureWithEngine(world, p, openWindow),
    });
    // The bots have left: the last finals came before `ended`.
    p.requests = engine!.requests.slice(logFrom);
    collectTruth(p);
  }
  phase = null;
  return p;
}

/** The utterances each bot heard, with the finals and partial groups matched to them. */
function collectTruth(p: Phase): void {
  for (const m of p.meetings) {
    const truth = m.sim.truth();
    const bot = truth.bots[0];
    const said: Said[] = [];
    for (const u of truth.utterances) {
      if (!bot || !u.audience.includes(bot.guestId)) {
        p.unheard++;
        continue;
      }
      const play = u.plays.find((pl) => pl.guestId === bot.guestId);
      const soundStart = play?.startedAt ?? u.startedAt;
      said.push({
        meetingId: m.meetingId,
        speaker: u.speaker,
        words: wordsOf(u.text),
        soundStart,
        soundEnd: soundStart + u.durationMs,
        unplayed: !play,
      });
    }
    said.sort((a, b) => a.soundStart - b.soundStart);
    // Each final, and each group of partials, to the utterance whose sound started nearest its heard start.
    const nearest = (startedAt: number) => {
      let best: Said | undefined;
      for (const s of said) {
        const off = Math.abs(s.soundStart - startedAt);
        if (off <= MATCH_MS && (!best || off < Math.abs(best.soundStart - startedAt))) best = s;
      }
      return best;
    };
    for (const f of p.finals.get(m.meetingId) ?? []) {
      const s = nearest(f.startedAt);
      if (s && !s.final) s.final = f;
    }
    const groups = new Map<string, Heard[]>();
    for (const h of p.partials.get(m.meetingId) ?? []) groups.set(h.captionId, [...(groups.get(h.captionId) ?? []), h]);
    for (const group of groups.values()) {
      const s = nearest(group[0].startedAt);
      if (s && !s.partials) s.partials = group;
    }
    p.utterances.push(...said);
  }
}

function printPhase(p: Phase, n: number): AudioFigures | null {
  console.log(phaseHeadline(p, n, 'transcription', PLAN));
  if (p.windowS === 0) return null;
  console.log(windowCpuLine(p, ` (speech engine's decoding apart: ${fmt(p.cpuEngineS / p.windowS, 3, 5)} cores)`));
  const odd = [
    p.badSignatures && `${p.badSignatures} bad signatures`,
    p.wrongSource && `${p.wrongSource} events from the other source`,
    p.unheard && `${p.unheard} utterances said while the bot was not in the call`,
    p.utterances.some((u) => u.unplayed) &&
      `${p.utterances.filter((u) => u.unplayed).length} utterances without a play report`,
  ].filter(Boolean);
  if (odd.length) console.log(`   unexpected: ${odd.join(', ')}`);
  if (p.mode === 'captions') {
    console.log(
      `   ${latencyRow('caption change -> signed caption_partial', p.captionMs).trimStart()}; ${p.shown} shown, ${p.pending.size} coalesced or lost`,
    );
    if (p.requests.length)
      console.log(`   unexpected: ${p.requests.length} requests to the speech engine in a captions phase`);
    return null;
  }
  const rates = sorted(clockRates(p.pcmClock));
  console.log(
    `   ${latencyRow('PCM chunk: last sample rendered -> worker has it', p.pcmLagMs).trimStart()}; ` +
      `tracks' PCM against the wall clock median ${fmt(percentile(rates, 50), 2, 4)}, slowest ${fmt(rates[0] ?? NaN, 2, 4)} (${rates.length} tracks; 1.00: real time)`,
  );
  const f = audioFigures(p);
  printAudio(f);
  printProblems(p);
  return f;
}

async function main(world: World): Promise<void> {
  const speechMs = await synthesizeScript(MALE_VOICES);
  const pauseMs = mean(PAUSES);
  console.log(
    `audio transcription bench: ${PLAN.count} meetings per phase (${benchPlatforms().join(', ')} in turn, two speakers each), phases ${PLAN.phases.join(', ')}, ` +
      `${PLAN.liveS} s window each; a sentence of ${(speechMs / 1000).toFixed(1)} s on average then a pause of ${(pauseMs / 1000).toFixed(1)} s; ` +
      `speech engine pocketsphinx (grammar of ${SENTENCES.length} sentences), STT_CONCURRENCY=${STT_CONCURRENCY}; ${os.cpus().length} CPUs`,
  );

  const done = await PLAN.run((mode) => runPhase(world, mode), printPhase);
  const phases = done.map(({ p }) => p);

  const [audio, captions] = phasesByKind(phases, ['audio', 'captions'], 'audio vs captions');
  const rates = sorted(audio.flatMap((p) => clockRates(p.pcmClock)));
  if (audio.length && (rates.length === 0 || percentile(rates, 50) < 0.95))
    console.log(
      `   NOT VALID: the pages' PCM ran at ${fmt(percentile(rates, 50), 2, 4)} of real time (median): the pages were starved of CPU ` +
        `and the engine heard only that share (run fewer meetings per phase, the second argument)`,
    );
  if (audio.length && captions.length) {
    const kinds = compareKinds(audio, captions);
    const cpu = kinds.cores.all;
    console.log(
      `   CPU per meeting, audio minus captions          ${fmt(cpu.perMeeting, 4, 8)} cores   (${fmt(cpu.first, 3, 5)} vs ${fmt(cpu.second, 3, 5)} cores for all)`,
    );
    const engineCores = mean(audio.map((p) => p.cpuEngineS / p.windowS));
    console.log(
      `      of which Chromium ${fmt(kinds.cores.chromium.perMeeting, 4, 8)}, ` +
        `this process (voice activity, requests, services) ${fmt(kinds.cores.node.perMeeting, 4, 8)}; ` +
        `the engine's decoding (not ours with a hosted engine) ${fmt(engineCores / kinds.liveFirst, 4, 8)} cores per meeting`,
    );
    const { pss } = kinds;
    console.log(
      `   Chromium PSS per meeting, audio minus captions ${fmt(pss.perMeeting / MiB, 2, 8)} MiB    (${fmt(pss.first / MiB, 0, 5)} vs ${fmt(pss.second / MiB, 0, 5)} MiB in all)`,
    );
  } else console.log('   no CPU / PSS comparison: a kind of phase has no live meetings');
  const figures = done
    .filter(({ p }) => audio.includes(p))
    .map(({ figures: f }) => f)
    .filter((f): f is AudioFigures => f !== null);
  if (figures.length) {
    const all = mergeAudio(figures);
    console.log(`   audio phases together:`);
    printAudio(all, '      ');
    const partial = percentile(
      sorted(all.partialMinusOwnMs.length ? all.partialMinusOwnMs : all.partialMinusMedianMs),
      50,
    );
    const final = percentile(sorted(all.finalMinusOwnMs.length ? all.finalMinusOwnMs : all.finalMinusMedianMs), 50);
    const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log(
      `   goals, the engine's time subtracted: partial p50 ${fmt(partial, 0, 0)} ms < 1000 ms: ${verdict(partial < 1000)}; ` +
        `final p50 ${fmt(final, 0, 0)} ms < 500 ms: ${verdict(final < 500)}`,
    );
  }
  console.log(
    `   ${latencyRow(
      'caption latency (captions phases, for reference)',
      captions.flatMap((p) => p.captionMs),
    )}`,
  );
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
} else {
  engine = await startSpeechEngine({ sentences: SENTENCES, apiKey: 'sk-bench-speech' });
  const world = await startWorld(
    { ...engine.env(), STT_CONCURRENCY: String(STT_CONCURRENCY), ...PLAN.worldEnv() },
    { receiver: { onCallback }, wrapDrivers: withPcmObserved },
  );
  token = world.token;
  await runBounded(world, PLAN.deadlineMs(), main);
  await engine.close();
}
