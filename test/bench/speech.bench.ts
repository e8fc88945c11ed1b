/**
 * The bot's voice, whole stack in real Chromium on the simulators (`npx tsx test/bench/speech.bench.ts`):
 *
 * - POST /speak -> the first sound in the call, per platform, over ROUNDS speeches: from the request
 *   to the first loud sample the simulated call heard of the bot's microphone, less the speech
 *   engine's own time (espeak-ng behind /v1/audio/speech: its request log's engineMs), so that what
 *   is left is ours: the request's way to the actor, the microphone button turned on, the audio sent
 *   to the page, decoded and started. The call's capture stamps a chunk by the page's clock less its
 *   buffer (a ScriptProcessor of 4096 samples at 48 kHz, ~85 ms), so figures are good to about that.
 * - What a speaking bot costs: CPU of the bot's Chromium (every process of the tree, /proc/<pid>/stat)
 *   and its PSS (/proc/<pid>/smaps_rollup), over a window of back-to-back speech against a window of
 *   the same meeting silent (the microphone's graph runs in both; only the speech differs). The
 *   bot's browser draws the simulated client too, whose own hearing of the microphone (the call's
 *   side) is in the figure: a real platform's page encodes and sends the track instead.
 */
import { microphoneOf } from '../simulators/microphone.js';
import { startSpeechOutputEngine } from '../support/speech-output/server.js';
import { eventually } from '../support/wait.js';
import { chromiumMissing, startWorld, type StartedMeeting, type World } from '../e2e/support/world.js';
import { fmt, latencyRow, median } from './stats.js';
import { measureWindow } from './support/measured-window.js';

const ROUNDS = Number(process.env.SPEECH_BENCH_ROUNDS ?? 20);
const WINDOW_MS = 15_000;
const SETTLE_MS = 5_000;
const TEXT = 'please send the slides before noon';
const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
const MiB = 1024 * 1024;

async function live(world: World, platform: (typeof PLATFORMS)[number]): Promise<StartedMeeting> {
  const m = await world.start(platform, { meeting: { lobby: false } });
  m.sim.join('Alice Example');
  await world.waitForStatus(m.meetingId, 'live', 60_000);
  await m.sim.waitForBot((b) => b.screen === 'in_call', 60_000);
  return m;
}

async function say(world: World, m: StartedMeeting, text: string): Promise<void> {
  const res = await world.t.api(`/meetings/${m.meetingId}/speak`, {
    method: 'POST',
    json: { text },
    apiKey: m.token.apiKey,
  });
  if (res.status !== 202) throw new Error(`speak answered ${res.status}: ${await res.text()}`);
}

const finishedCount = (world: World, meetingId: string) =>
  world.callbacks(meetingId).filter((c) => c.eventType === 'speech_finished').length;

async function firstSound(
  world: World,
  engine: Awaited<ReturnType<typeof startSpeechOutputEngine>>,
  platform: (typeof PLATFORMS)[number],
) {
  const m = await live(world, platform);
  const mic = microphoneOf(m.sim);
  const latencies: number[] = [];
  const engineMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    engine.requests.length = 0;
    const done = finishedCount(world, m.meetingId);
    const asked = Date.now();
    await say(world, m, TEXT);
    await eventually(() => finishedCount(world, m.meetingId) > done, 'speech_finished', 30_000);
    await eventually(() => !mic.on, 'the microphone off', 10_000);
    const heard = mic.firstSoundAt(asked);
    const engineTime = engine.requests[0]?.engineMs ?? NaN;
    if (heard !== null) latencies.push(heard - asked - engineTime);
    engineMs.push(engineTime);
  }
  console.log(latencyRow(`${platform}: POST /speak -> first sound, engine time subtracted`, latencies));
  console.log(
    `${''.padEnd(2)}engine (espeak-ng) median ${fmt(median(engineMs), 0)} ms, rounds heard ${latencies.length}/${ROUNDS}`,
  );
  return m;
}

async function speakingCost(world: World, m: StartedMeeting): Promise<void> {
  // The rounds before leave work behind (decoded buffers to collect, the call's capture to drain).
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const silent = await measureWindow(Date.now() + WINDOW_MS, 500);
  let speaking = true;
  const loop = (async () => {
    while (speaking) {
      const done = finishedCount(world, m.meetingId);
      await say(world, m, TEXT);
      await eventually(() => finishedCount(world, m.meetingId) > done || !speaking, 'speech_finished', 30_000);
    }
  })();
  const talking = await measureWindow(Date.now() + WINDOW_MS, 500);
  speaking = false;
  await loop;
  const rate = (w: typeof silent) => w.cpuChromiumS / w.windowS;
  console.log(
    `${m.platform} bot's Chromium: silent ${fmt(rate(silent) * 100, 1)} % of a core, PSS ${fmt(median(silent.pssBytes) / MiB, 0)} MiB; ` +
      `speaking ${fmt(rate(talking) * 100, 1)} %, PSS ${fmt(median(talking.pssBytes) / MiB, 0)} MiB; ` +
      `a speaking bot adds ${fmt((rate(talking) - rate(silent)) * 100, 1)} % of a core, ${fmt((median(talking.pssBytes) - median(silent.pssBytes)) / MiB, 1)} MiB ` +
      `(${talking.steal}, load ${talking.load.map((l) => l.toFixed(2)).join(' -> ')})`,
  );
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
} else {
  const engine = await startSpeechOutputEngine({});
  const world = await startWorld({ ...engine.env(), MAX_MEETING_DURATION_MS: '600000' });
  try {
    for (const platform of PLATFORMS) {
      const m = await firstSound(world, engine, platform);
      await speakingCost(world, m);
      await world.stop(m.meetingId);
      await world.waitForStatus(m.meetingId, 'ended', 40_000);
    }
  } finally {
    await world.close();
    await engine.close();
  }
}
