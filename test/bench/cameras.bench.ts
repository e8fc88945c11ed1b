/**
 * What a meeting costs the bot with cameras on (issue #53), and what each BOT_VIDEO_SAVINGS step
 * saves: per platform, MEETINGS simulated meetings at once, each with four participants (their
 * cameras on: the simulator's media server, a Chromium of its own, sends each as VP8 at the tile
 * size the bot's window asks for, 15 fps) or with cameras off, the real puppeteer drivers joined
 * with the steps of the run (none, each alone, all). Once every bot has captions on and its steps
 * had time to act, a window of WINDOW_S seconds is measured while every meeting's caption grows a
 * word every STEP_MS (staggered over the meetings):
 *
 * - CPU: utime + stime of the bots' Chromium (every process of the pool's browsers, not the
 *   media server's nor the bare pipeline's), cores = CPU s / window s, per meeting;
 * - PSS: /proc/<pid>/smaps_rollup over the same processes, median of samples, per meeting;
 * - caption latency: from the simulator changing the caption to the driver reporting that text,
 *   p50 and p99, beside the bare in-page pipeline (support/bare-caption-page.ts) run in the same
 *   window at one meeting's pace: the ratio is the figure.
 *
 * Goals: < 0.03 cores and < 50 MB PSS a meeting with cameras on, latency within 1.2x of bare.
 * The simulated call audio is sent by the same media server (test/simulators/media/audio-page.js:
 * a WebAudio graph of silence and an Opus encoder per track, in the simulator's Chromium), so the
 * bots' figures hold only its receiving end (call-audio.js: a peer connection, Opus decoding,
 * <audio> elements), as on a real platform.
 *
 * `npx tsx test/bench/cameras.bench.ts [--quick] [--meetings=N] [--platforms=teams,zoom,google_meet]
 *  [--steps=min|each]` (min: cameras off, none, all; each, the default: also every step alone).
 * --quick: 3 meetings, shorter windows. --profile: CPU and PSS per kind of Chromium process (renderer,
 * gpu-process, utility:network/storage/audio, the browser) under each row, and the renderers' CPU
 * per thread (CrRendererMain shows as "chromium"; AudioOutputDevice, WebRTC_W_and_N, Compositor...).
 * --flags='[...]' adds Chromium flags to the bots' (BOT_BROWSER_ARGS), --window=WxH sets their
 * window (BOT_WINDOW_SIZE), --poll=MS and --live-poll=MS the drivers' reading intervals.
 * Every page load receives the call's audio the same way (AUDIO: tracks from the join, silence
 * between words), so that rows differ by what they compare and not by the simulator's draw.
 */
import type { SimMeeting, SimPlatform, Simulator } from '../simulators/index.js';
import { growWords, seedWithAudio, startSimulator } from '../simulators/index.js';
import {
  browserProcesses,
  createDriverFactory,
  totalPssBytes,
  type CaptionUpdate,
  type DriverListener,
  type MeetingDriver,
} from '../../services/meeting-session/src/drivers/index.js';
import type { VideoSaving } from '../../services/meeting-session/src/drivers/video/index.js';
import { CpuMeter, machineBusyS } from './support/process-cpu.js';
import { startBarePipeline, type BarePipeline } from './support/bare-caption-page.js';
import { KindProfile } from './support/chromium-kinds.js';
import { percentile, sorted } from './stats.js';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const QUICK = process.argv.includes('--quick');
const MEETINGS = Number(flag('meetings') ?? (QUICK ? 3 : 10));
const PLATFORMS = (flag('platforms') ?? 'teams,zoom,google_meet').split(',') as SimPlatform[];
const WINDOW_S = QUICK ? 10 : 20;
const STEP_MS = 400;
const WORDS_PER_TURN = 12;
/** After captions are on: the platform step's clicks (a few readings) and the renegotiations. */
const SETTLE_MS = QUICK ? 6_000 : 10_000;
const CAMERAS = ['Ann Lee', 'Ben Ode', 'Cy Park', 'Dee Roe'];
/** The call's audio in every page: its tracks there from the join, carrying silence between words. */
const AUDIO = { tracks: 'atJoin', idle: 'silence' } as const;
const VOCABULARY = 'we should ship the release on friday after the review and the tests pass on every platform'.split(
  ' ',
);
const MB = 1024 * 1024;
/** --flags='["--in-process-gpu"]': Chromium flags tried on top of the bots' own (a JSON array). */
const EXTRA_FLAGS = JSON.parse(flag('flags') ?? '[]') as string[];
/** --window=640x360: the bots' window (BOT_WINDOW_SIZE), 1280x720 by default. */
const WINDOW = flag('window')
  ? { width: Number(flag('window')!.split('x')[0]), height: Number(flag('window')!.split('x')[1]) }
  : null;
const PROFILE = process.argv.includes('--profile');
/** --poll=500: the drivers' reading interval (pollIntervalMs, 250 by default), to see the readings' share. */
const POLL_MS = flag('poll') ? Number(flag('poll')) : undefined;
/** --live-poll=250: the reading interval in a settled captions-only call (livePollIntervalMs, 1,000 by default). */
const LIVE_POLL_MS = flag('live-poll') ? Number(flag('live-poll')) : undefined;

interface RunConfig {
  label: string;
  cameras: number;
  savings: VideoSaving[];
}
const ALL: VideoSaving[] = ['platform', 'hide', 'inactive'];
const ALL_CONFIGS: RunConfig[] = [
  { label: 'cameras off', cameras: 0, savings: [] },
  { label: '4 cameras, no step', cameras: 4, savings: [] },
  ...(flag('steps') === 'min'
    ? []
    : (['platform', 'hide', 'inactive'] as VideoSaving[]).map((s) => ({
        label: `4 cameras, ${s}`,
        cameras: 4,
        savings: [s],
      }))),
  { label: '4 cameras, all steps', cameras: 4, savings: ALL },
];
/** --runs=off,none,platform,hide,inactive,all: only these rows (the label's last word; off: cameras off). */
const RUNS = flag('runs')?.split(',');
const CONFIGS = RUNS
  ? ALL_CONFIGS.filter((c) =>
      RUNS.includes(
        c.cameras === 0
          ? 'off'
          : c.label.split(' ').at(-1) === 'step'
            ? 'none'
            : c.label.split(' ').at(-1)!.replace('steps', 'all'),
      ),
    )
  : ALL_CONFIGS;

let tag = 0;
function meetingId(platform: SimPlatform): string {
  tag++;
  if (platform === 'google_meet') {
    const l = (n: number) => String.fromCharCode(97 + (n % 26));
    return `ben-${l(tag)}${l(tag >> 5)}ch-${l(tag >> 10)}qz`;
  }
  return String(7300000000 + tag);
}

/** Texts shown per meeting and when, matched by the driver's reports (the same text, or a report ending with it). */
class Pending {
  private readonly shown: Array<{ text: string; at: number }> = [];
  readonly latencies: number[] = [];
  show(text: string): void {
    this.shown.push({ text, at: performance.now() });
  }
  reported(text: string): void {
    const i = this.shown.findIndex((s) => s.text === text || text.endsWith(s.text));
    if (i < 0) return;
    this.latencies.push(performance.now() - this.shown[i].at);
    this.shown.splice(0, i + 1);
  }
}

function listenerFor(pending: Pending, label: string): DriverListener & { captionsSeen: number } {
  const noop = () => {};
  return {
    captionsSeen: 0,
    lobby: noop,
    admitted: noop,
    caption(update: CaptionUpdate) {
      this.captionsSeen++;
      pending.reported(update.text);
    },
    segment: noop,
    participants: noop,
    warning: noop,
    signedIn: noop,
    audio: noop,
    audioFailed: noop,
    audioSkipped: noop,
    pcm: noop,
    pcmFailed: noop,
    looks: noop,
    captionsOn: noop,
    ended: noop,
    failed(reason, detail) {
      console.error(`  ${label}: failed ${reason} ${detail ?? ''}`);
    },
  } as DriverListener & { captionsSeen: number };
}

interface Row {
  cores: number;
  pssMb: number;
  p50: number;
  p99: number;
  bareP50: number;
  bareP99: number;
  captions: number;
  processes: number;
  machine: number;
  profile: string[];
}

async function run(sim: Simulator, bare: BarePipeline, platform: SimPlatform, config: RunConfig): Promise<Row> {
  const factory = createDriverFactory({
    extraArgs: [...sim.hostResolverRules(), ...EXTRA_FLAGS],
    videoSavings: config.savings,
    windowSize: WINDOW ?? undefined,
    pollIntervalMs: POLL_MS,
    livePollIntervalMs: LIVE_POLL_MS,
  });
  const meetings: Array<{ meeting: SimMeeting; driver: MeetingDriver; pending: Pending }> = [];
  try {
    for (let i = 0; i < MEETINGS; i++) {
      const id = meetingId(platform);
      // Every run's pages receive the call's audio alike, all call long (AUDIO), as a platform's
      // server sends it: a page load that drew late tracks or paused ones would receive none here,
      // where nobody speaks, and make the rows differ by the draw instead of the step.
      const markupSeed = seedWithAudio(platform, AUDIO, 1000 + i * 7919);
      const meeting = sim.meeting(id, { lobby: false, cameras: config.cameras, cameraFps: 15, markupSeed });
      for (const person of CAMERAS) meeting.join(person);
      const pending = new Pending();
      const driver = factory.create({
        platform,
        url: sim.url(platform, id),
        meetingId: `m_${id}`,
        displayName: 'Notetaker',
      });
      await driver.start(listenerFor(pending, `${platform} ${i}`));
      meetings.push({ meeting, driver, pending });
    }
    await Promise.all(meetings.map((m) => m.meeting.waitForBot((b) => b.captionsOn, 120_000)));
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const pids = () => factory.browsers().flatMap((b) => (b.pid ? browserProcesses(b.pid) : []));
    const cpu = new CpuMeter(pids());
    const kinds = new KindProfile();
    kinds.sample(pids());
    const busy = machineBusyS();
    const pss: number[] = [];
    let processes = 0;
    bare.take();
    const started = performance.now();
    const turns = meetings.map((m, i) => ({ turn: m.meeting.caption(CAMERAS[i % 2]), words: 0, n: 0 }));
    let bareWords = 0;
    let tick = 0;
    let nextSample = started;
    while (performance.now() - started < WINDOW_S * 1000) {
      // One meeting's change per tick: each meeting changes every STEP_MS, staggered.
      const m = tick % meetings.length;
      const t = turns[m];
      if (t.words === WORDS_PER_TURN) {
        t.turn = meetings[m].meeting.caption(CAMERAS[++t.n % 2]);
        t.words = 0;
      }
      t.words++;
      const text = `Turn${t.n} ${growWords(VOCABULARY.slice(0, t.words).join(' ')).at(-1)}`;
      meetings[m].pending.show(text);
      t.turn.show(text);
      if (m === 0) bare.show(`bare ${bareWords++} ${text}`);
      tick++;
      if (performance.now() >= nextSample) {
        const now = pids();
        cpu.sample(now);
        kinds.sample(now);
        processes = Math.max(processes, now.length);
        pss.push(totalPssBytes(now));
        nextSample += 2000;
      }
      const due = started + (tick * STEP_MS) / meetings.length;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    cpu.sample(pids());
    kinds.sample(pids());
    const windowS = (performance.now() - started) / 1000;
    const latencies = sorted(meetings.flatMap((m) => m.pending.latencies));
    const bareLatencies = sorted(bare.take());
    return {
      cores: cpu.seconds() / windowS / MEETINGS,
      pssMb: percentile(sorted(pss), 50) / MB / MEETINGS,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      bareP50: percentile(bareLatencies, 50),
      bareP99: percentile(bareLatencies, 99),
      captions: latencies.length,
      processes,
      machine: (machineBusyS() - busy) / windowS,
      profile: kinds.lines(windowS, MEETINGS),
    };
  } finally {
    await Promise.all(meetings.map((m) => m.driver.leave().catch(() => {})));
    await factory.close();
  }
}

const f = (v: number, d = 3, w = 7) => v.toFixed(d).padStart(w);

const sim = await startSimulator();
const bare = await startBarePipeline();
console.log(
  `cameras: ${MEETINGS} meetings a run, ${CAMERAS.length} participants each, window ${WINDOW_S} s, a caption change every ${STEP_MS} ms a meeting`,
);
console.log(
  `${'platform'.padEnd(12)}${'run'.padEnd(26)}${'cores/mtg'.padStart(10)}${'PSS MB/mtg'.padStart(11)}${'p50'.padStart(7)}${'p99'.padStart(7)}${'bare50'.padStart(8)}${'bare99'.padStart(8)}${'x p50'.padStart(7)}${'x p99'.padStart(7)}${'n'.padStart(6)}${'procs'.padStart(6)}${'machine'.padStart(8)}`,
);
try {
  for (const platform of PLATFORMS) {
    for (const config of CONFIGS) {
      try {
        const r = await run(sim, bare, platform, config);
        console.log(
          `${platform.padEnd(12)}${config.label.padEnd(26)}${f(r.cores, 4, 10)}${f(r.pssMb, 1, 11)}${f(r.p50, 0)}${f(r.p99, 0)}${f(r.bareP50, 0, 8)}${f(r.bareP99, 0, 8)}${f(r.p50 / r.bareP50, 2)}${f(r.p99 / r.bareP99, 2)}${String(r.captions).padStart(6)}${String(r.processes).padStart(6)}${f(r.machine, 2, 8)}`,
        );
        if (PROFILE) for (const line of r.profile) console.log(`    ${line}`);
      } catch (error) {
        console.log(`${platform.padEnd(12)}${config.label.padEnd(26)} failed: ${(error as Error).message}`);
      }
    }
  }
} finally {
  await bare.close();
  await sim.close();
}
process.exit(0);
