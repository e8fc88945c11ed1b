/**
 * Placement across workers, for real: a registry (with transcript-store and webhook-emitter) in
 * this process and two meeting-session workers as separate processes, all over a nats-server
 * started here. A full worker declines; a killed worker's meetings end in error worker_lost within
 * its lease, and their URLs can be started again.
 */
import { expect } from 'chai';
import { ServiceError } from '@notetaker/contracts';
import type { Child } from './support/child.js';
import { freshMeetUrl, TOKEN_CALLER } from './support/harness.js';
import { registryOnNats } from './support/registry-on-nats.js';

const LEASE_MS = 3000;

describe('placement across workers over NATS (separate processes)', function () {
  this.timeout(90_000);
  const suite = registryOnNats({ leaseMs: LEASE_MS });
  const workers: Child[] = [];

  before(async () => {
    for (let i = 0; i < 2; i++) workers.push(suite.spawnWorker({ MAX_MEETINGS_PER_WORKER: '1' }));
    await Promise.all(workers.map((w) => w.waitFor((f) => 'ready' in f)));
  });

  it("places meetings on workers with room, declines when all are full, and recovers a dead worker's meetings", async () => {
    const harness = suite.h;
    const urlA = freshMeetUrl();
    const a = await harness.start({ url: urlA });
    const b = await harness.start();
    // One seat per worker: the second start had to go to the other worker.
    const holderOf = async (meetingId: string) => {
      const found = await Promise.any(workers.map((w) => w.waitFor((f) => f.placed === meetingId, 5000).then(() => w)));
      return found;
    };
    const holderA = await holderOf(a.meetingId);
    const holderB = await holderOf(b.meetingId);
    expect(holderA).to.not.equal(holderB);
    await harness.waitForEvent(a.meetingId, (e) => e.payload.status === 'live');
    await harness.waitForEvent(b.meetingId, (e) => e.payload.status === 'live');

    // Every worker is full: the start fails, retryably, and claims nothing.
    const urlC = freshMeetUrl();
    const full = await harness.start({ url: urlC }).then(
      () => null,
      (err: ServiceError) => err,
    );
    expect(full).to.be.instanceOf(ServiceError);
    expect([full!.status, full!.retryable, full!.code, full!.retryAfterS]).to.deep.equal([503, true, 'at_capacity', 5]);
    expect(full!.message).to.equal('All 2 bot seats are busy; retry in 5 s'); // the instance's seats, both workers'

    // The worker hosting A dies without a word.
    const killedAt = Date.now();
    await holderA.kill();
    const lost = await harness.waitForEvent(a.meetingId, (e) => e.payload.status === 'error', 30_000);
    const detectedMs = Date.now() - killedAt;
    expect(lost.payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'worker_lost' });
    expect(detectedMs).to.be.below(30_000);
    console.log(`      worker loss detected after ${detectedMs} ms (lease ${LEASE_MS} ms)`);
    const { meetings } = await harness.request<{ meetings: Array<{ meetingId: string }> }>('status', {
      caller: TOKEN_CALLER,
    });
    expect(meetings.map((m) => m.meetingId)).to.deep.equal([b.meetingId]);

    // Commands reach the owning actor in its own process.
    expect(await harness.request('stop', { caller: TOKEN_CALLER, meetingId: b.meetingId })).to.deep.equal({
      meetingId: b.meetingId,
      status: 'stopping',
    });
    const ended = await harness.waitForEvent(b.meetingId, (e) => e.payload.status === 'ended', 10_000);
    expect(ended.payload.reason).to.equal('stopped');

    // A's URL is free again, and the surviving worker has room again.
    const again = await harness.start({ url: urlA });
    await holderOf(again.meetingId).then((w) => expect(w).to.equal(holderB));
    await harness.waitForEvent(again.meetingId, (e) => e.payload.status === 'live');
  });
});
