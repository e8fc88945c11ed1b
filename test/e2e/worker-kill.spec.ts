/**
 * A meeting-session worker killed with its bot live in real Chromium (SIGKILL to the worker
 * process, as the OOM killer or a lost machine would): the production layout over a real
 * nats-server, the rest of the stack (gateway, registry, transcript-store, webhook-emitter) in this
 * process and the worker as a separate OS process started exactly as deployed
 * (`node --import tsx services/meeting-session/src/main.ts`, MEETING_SESSION_ROLE=worker).
 *
 * Nothing may survive the worker: every Chromium process it ran (recorded from /proc while the bot
 * was live) must be gone, with no process left in the browser's group either. The browser is
 * launched over a pipe (--remote-debugging-pipe), so the kernel closing the dead worker's end of it
 * is what makes Chromium quit; a browser launched detached and without the pipe would keep running
 * under init, and this test would fail. The meeting ends in `error` / `worker_lost` once the
 * worker's lease runs out (the user sees it in the `meeting_status` callback and the meeting's
 * record), the transcript so far is kept, and the same meeting URL can be started again on the
 * worker that replaced it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { natsForSuite, type NatsServerHandle } from '@notetaker/bus/test-support';
import type { ProcessEntry } from '../../services/meeting-session/src/drivers/process-tree.js';
import { spawnChild, type Child } from '../../services/meeting-session/test/support/child.js';
import { growWords } from '../simulators/index.js';
import { browserGroupGone, chromiumOf, newMarker, processesGone } from './support/chromium.js';
import { expectSignedInSequence, expectTranscript, finalizedSegments } from './support/stream.js';
import { failedWith, JOINED_AND_CAPTIONED, shape } from './support/shape.js';
import { eventTime, expectWhereSaid, savedRecording } from './support/recording.js';
import { chromiumMissing, E2E_ENV, payloadOf, sleep, startWorld, type World } from './support/world.js';

/** Short, so the loss is noticed within a few seconds; long enough that a busy worker keeps it. */
const LEASE_MS = 2000;
const ROOT = path.resolve(import.meta.dirname, '../..');
const WORKER_MAIN = path.join(ROOT, 'services/meeting-session/src/main.ts');

interface WorkerProcess extends Child {
  workerId: string;
  /** The worker's live Chromium processes now, crash handlers that left its process tree included. */
  chromium(): ProcessEntry[];
  /** Waits for the worker's log line that it placed the meeting. */
  placed(meetingId: string): Promise<unknown>;
}

/**
 * A meeting-session worker as deployed, started and waited for until it holds its lease. Its JSON
 * log lines are the child's facts, so it logs at info; its data directory is its own.
 */
async function startWorkerProcess(env: Record<string, string>): Promise<WorkerProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'meeting-worker-'));
  const marker = newMarker();
  const child = spawnChild(WORKER_MAIN, {
    cwd: ROOT,
    env: { ...env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...marker },
  });
  void child.exited.then(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const logged = (msg: string) => child.waitFor((l) => l.msg === msg, 20_000, msg);
  // The worker renews its lease before it logs this; "service started" follows once it serves /healthz.
  let started: Record<string, unknown>;
  try {
    started = await logged('meeting-session started');
    await logged('service started');
  } catch (err) {
    await child.kill();
    throw err;
  }
  return Object.assign(child, {
    workerId: String(started.workerId),
    chromium: () => chromiumOf(child.pid, marker),
    placed: (meetingId: string) =>
      child.waitFor((l) => l.msg === 'meeting placed' && l.meetingId === meetingId, 20_000, 'the placement'),
  });
}

const describeProcesses = (processes: ProcessEntry[]) => processes.map((p) => `${p.pid} ${p.comm}`);

describe('whole stack over NATS in real Chromium: the worker process is killed mid-meeting', function () {
  this.timeout(45_000);
  let nats: NatsServerHandle | null = null;
  let world: World | undefined;
  let workerEnv: Record<string, string> = {};
  const workers: WorkerProcess[] = [];
  /** Every Chromium process recorded below a worker, swept up after the suite whatever happened. */
  const recorded: ProcessEntry[] = [];

  before(async function () {
    const missing = chromiumMissing();
    if (missing) {
      console.log(`    skipped: ${missing}`);
      this.skip();
    }
    const bus = await natsForSuite(this);
    nats = bus.server;
    const shared = { NATS_URL: bus.url, WORKER_LEASE_MS: String(LEASE_MS) };
    // This process: every service but the worker (meeting-session as registry only, no browsers).
    world = await startWorld({ ...shared, MEETING_SESSION_ROLE: 'registry' });
    // The worker: the same timings, and the simulator's Chromium flags.
    workerEnv = {
      ...E2E_ENV,
      ...shared,
      MEETING_SESSION_ROLE: 'worker',
      BOT_BROWSER_ARGS: JSON.stringify(world.sim.hostResolverRules()),
    };
  });

  after(async () => {
    for (const worker of workers) await worker.kill();
    // Whatever a failed case left running goes too (nothing, when the case passed).
    for (const p of await processesGone(recorded, 2_000)) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await world?.close();
    await nats?.stop();
  });

  it('Google Meet: no Chromium left, error worker_lost (callback and record), the transcript kept, the URL started again', async () => {
    const w = world!;
    const first = await startWorkerProcess(workerEnv);
    workers.push(first);

    const m = await w.start('google_meet', { meeting: { lobby: false } });
    await first.placed(m.meetingId);
    m.sim.join('Alice Example');
    await w.waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((bot) => bot.captionsOn);
    await m.sim.speak('Alice Example', growWords('the numbers for October are in'));
    await w.waitForCallback(m.meetingId, () => finalizedSegments(w.callbacks(m.meetingId)).length === 1, 'one segment');

    // The bot is live: the worker runs its browser, the browser's helpers and its crash handlers.
    const chromium = first.chromium();
    recorded.push(...chromium);
    const browsers = chromium.filter((p) => p.ppid === first.pid);
    expect(browsers, 'browsers the worker launched').to.have.length(1);
    expect(chromium.length, "the browser's helpers").to.be.greaterThan(1);

    const killedAt = Date.now();
    await first.kill();
    // A supervisor would start a new worker; it comes up while the dead one's lease runs out.
    const replacement = startWorkerProcess(workerEnv).then((worker) => {
      workers.push(worker);
      return worker;
    });
    replacement.catch(() => {}); // awaited below

    const left = await processesGone(chromium, 10_000);
    const goneMs = Date.now() - killedAt;
    // Gone for processesGone but still in /proc: exited, not yet reaped.
    const zombies = chromium.filter((p) => fs.existsSync(`/proc/${p.pid}`)).length;
    expect(describeProcesses(left), 'Chromium processes left after the worker died').to.deep.equal([]);
    // Helpers forked after the snapshot would be in the browser's process group.
    expect(await browserGroupGone(browsers[0].pid), 'orphans of the dead browser').to.deep.equal([]);

    const lost = await w.waitForStatus(m.meetingId, 'error', 15_000);
    const detectedMs = Date.now() - killedAt;
    const counts = new Map<string, number>();
    for (const p of chromium) counts.set(p.comm, (counts.get(p.comm) ?? 0) + 1);
    const found = [...counts].map(([comm, n]) => `${n} ${comm}`).join(', ');
    console.log(
      `      Chromium (${found}) gone ${goneMs} ms after the kill (${zombies} as zombies init had not reaped yet); worker_lost after ${detectedMs} ms (lease ${LEASE_MS} ms)`,
    );
    expect(payloadOf(lost)).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'worker_lost' });
    const callbacks = w.callbacks(m.meetingId);
    expectSignedInSequence(callbacks, m.token, m.meetingId);
    // What the worker sent while its bot ran, then what the registry wrote for the lost meeting
    // (endLostMeeting: the final flush, then the error).
    expect(shape(callbacks)).to.deep.equal([...JOINED_AND_CAPTIONED, ...failedWith('worker_lost')]);
    expect(payloadOf(callbacks.at(-2)!)).to.include({ segmentsWritten: 1, totalSegments: 1 });
    // The record says error and keeps what was said; the meeting is no longer among the live ones.
    await expectTranscript(w, m.meetingId, m.token, 'error', finalizedSegments(callbacks));
    const status = (await (await w.get('/meetings/status')).json()) as { meetings: Array<{ meetingId: string }> };
    expect(status.meetings.map((x) => x.meetingId)).to.not.include(m.meetingId);
    expect((await w.stop(m.meetingId)).status).to.equal(409);

    // The URL is free again: the same meeting, started anew, runs on the replacement worker.
    const second = await replacement;
    expect(second.workerId).to.not.equal(first.workerId);
    const next = await w.start('google_meet', { nativeId: m.sim.id });
    expect(next.url).to.equal(m.url);
    expect(next.meetingId).to.not.equal(m.meetingId);
    await second.placed(next.meetingId);
    await w.waitForStatus(next.meetingId, 'live');
    const nextChromium = second.chromium();
    recorded.push(...nextChromium);
    expect(nextChromium.filter((p) => p.ppid === second.pid)).to.have.length(1);
    expect((await w.stop(next.meetingId)).status).to.equal(200);
    await w.waitForStatus(next.meetingId, 'ended');
    const leftAfterStop = await processesGone(nextChromium, 10_000);
    expect(describeProcesses(leftAfterStop), 'Chromium left after the next meeting ended').to.deep.equal([]);
  });

  it('a recorded meeting: the file the dead worker was writing plays, misses at most 2 s, and is completed', async () => {
    const w = world!;
    // The worker the first case left running would take the meeting as well as this one.
    for (const earlier of workers.splice(0)) await earlier.kill();
    const worker = await startWorkerProcess(workerEnv);
    workers.push(worker);
    const m = await w.start('google_meet', { meeting: { lobby: false }, request: { recording: 'audio' } });
    await worker.placed(m.meetingId);
    m.sim.join('Alice Example');
    const live = eventTime(await w.waitForStatus(m.meetingId, 'live'));
    const bot = await m.sim.waitForBot((b) => b.captionsOn);
    const said = await m.sim.say('Alice Example', 'Everything said before the crash is in the file.');
    await sleep(2000);
    recorded.push(...worker.chromium());

    const killedAt = Date.now();
    await worker.kill();
    await w.waitForStatus(m.meetingId, 'error', 15_000);
    // The registry completed the file with what reached storage, and said what is missing after it.
    const saved = await savedRecording(w, m);
    expect(saved.status).to.equal('incomplete');
    const before = killedAt - live;
    expect(saved.audio.seconds * 1000, 'the recording up to the kill').to.be.within(before - 2000, before + 500);
    expect(saved.gaps.map((g) => g.reason)).to.deep.equal(['worker_lost']);
    expect(saved.gaps[0].startMs, 'the gap starts where the file ends').to.be.within(before - 2000, before + 500);
    expect(saved.gaps[0].endMs, 'and lasts until the meeting was found lost').to.be.greaterThan(before);
    expectWhereSaid(saved, [said], bot.guestId);
  });
});
