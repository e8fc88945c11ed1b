/**
 * The explicit decline of a placement, for real: a registry (with transcript-store and
 * webhook-emitter) in this process and meeting-session workers as separate processes over a
 * nats-server started here. Two starts reach a worker with one free seat at the same moment (the
 * worker is paused with SIGSTOP while NATS hands it both placements): it takes one, answers
 * `{accepted: false}` to the other, and the registry asks again, so another worker takes it.
 */
import { expect } from 'chai';
import { protocol } from '../src/protocol.js';
import type { Child } from './support/child.js';
import { eventually, freshMeetUrl, TOKEN_CALLER } from './support/harness.js';
import { registryOnNats } from './support/registry-on-nats.js';

// Long enough that the paused worker keeps its lease (and its meeting) while it is stopped.
const LEASE_MS = 30_000;

describe('placement declined by a full worker over NATS (separate processes)', function () {
  this.timeout(90_000);
  // Workers are killed after the suite: SIGKILL ends one a failed test left paused all the same.
  const suite = registryOnNats({ leaseMs: LEASE_MS });
  const spawnWorker = (maxMeetings: number): Child =>
    suite.spawnWorker({ MAX_MEETINGS_PER_WORKER: String(maxMeetings) });

  it('a worker with one seat takes one of two simultaneous starts and declines the other, which another worker takes', async () => {
    const harness = suite.h;
    // Every placement the registry asks (a plain subscriber sees each ask of the queue group)...
    const asks: string[] = [];
    const askSub = harness.bus.subscribe(protocol.place.subject, (data) => {
      asks.push((data as { meetingId: string }).meetingId);
    });
    // ...and every answer a worker gives to one (replies travel on the registry's inbox).
    const answers: Array<{ accepted: boolean; workerId?: string }> = [];
    const answerSub = harness.bus.subscribe('_INBOX.>', (data) => {
      const reply = data as { ok?: boolean; data?: { accepted?: unknown } } | undefined;
      if (reply?.ok === true && typeof reply.data?.accepted === 'boolean') {
        answers.push(reply.data as { accepted: boolean; workerId?: string });
      }
    });
    await harness.bus.flush();

    try {
      const small = spawnWorker(1);
      // Ready once nats-server has its queue-group subscription (the child flushes before saying so).
      const smallId = (await small.waitFor((f) => 'ready' in f)).ready as string;

      // The only worker is paused: NATS queues both placements for it, one free seat for two meetings.
      process.kill(small.pid, 'SIGSTOP');
      const urls = [freshMeetUrl(), freshMeetUrl()];
      const starts = urls.map((url) =>
        harness.start({ url }).then(
          (started) => ({ started, err: null }),
          (err: Error) => ({ started: null, err }),
        ),
      );
      await eventually(() => asks.length >= 2, 'both placements asked of the paused worker', 10_000);
      expect(answers).to.deep.equal([]);

      // A second worker with room joins the queue group only now, after both asks went to the first.
      const big = spawnWorker(5);
      const bigId = (await big.waitFor((f) => 'ready' in f)).ready as string;
      process.kill(small.pid, 'SIGCONT');

      const results = await Promise.all(starts);
      for (const r of results) expect(r.err, String(r.err)).to.equal(null);
      const [a, b] = results.map((r) => r.started!);

      // The small worker hosts exactly one of the two; the big one the other.
      const placedOn = (w: Child) => [a.meetingId, b.meetingId].filter((id) => w.facts.some((f) => f.placed === id));
      await eventually(() => placedOn(small).length + placedOn(big).length === 2, 'both meetings placed');
      expect(placedOn(small)).to.have.length(1);
      expect(placedOn(big)).to.have.length(1);
      const declined = placedOn(big)[0];
      const kept = placedOn(small)[0];

      // The small worker said no to the second, and the registry asked again for that meeting only.
      expect(answers).to.deep.include({ accepted: false });
      expect(answers.filter((r) => r.accepted && r.workerId === smallId)).to.have.length(1);
      expect(answers.filter((r) => r.accepted && r.workerId === bigId)).to.have.length(1);
      expect(asks.filter((id) => id === kept)).to.have.length(1);
      expect(asks.filter((id) => id === declined).length).to.be.at.least(2);

      // Both meetings run, each on its own worker.
      for (const { meetingId } of [a, b]) {
        await harness.waitForEvent(meetingId, (e) => e.payload.status === 'live', 10_000);
      }
      const records = await Promise.all(
        [kept, declined].map((meetingId) =>
          harness.request<{ status: string }>('get', { caller: TOKEN_CALLER, meetingId }),
        ),
      );
      expect(records.map((r) => r.status)).to.deep.equal(['live', 'live']);
    } finally {
      await askSub.unsubscribe();
      await answerSub.unsubscribe();
    }
  });
});
