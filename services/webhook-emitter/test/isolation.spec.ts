import { expect } from 'chai';
import { replies, startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { envelope, harnessPerSuite, newMeetingId } from './support/harness.js';

describe('webhook emitter: isolation', function () {
  this.timeout(30_000);
  // Small limits on purpose: the hung receiver's meetings outnumber every slot there is.
  const h = harnessPerSuite({
    WEBHOOK_TIMEOUT_MS: '5000',
    WEBHOOK_RECEIVER_CONCURRENCY: '2',
    WEBHOOK_GLOBAL_CONCURRENCY: '8',
  });
  let hung: CallbackReceiver;
  const healthy: CallbackReceiver[] = [];

  before(async () => {
    hung = await startCallbackReceiver({ defaultReply: replies.hang() });
    for (let i = 0; i < 50; i++) healthy.push(await startCallbackReceiver({ secret: h.token.signingSecret }));
  });
  after(() => Promise.all([hung, ...healthy].map((r) => r.close())));

  it('one hung receiver (with 20 meetings) does not delay 50 healthy ones', async () => {
    const hungMeetings = Array.from({ length: 20 }, newMeetingId);
    for (const meetingId of hungMeetings) await h.register(meetingId, `${hung.url}/hook`, h.token.id);
    const healthyMeetings = healthy.map(() => newMeetingId());
    for (let i = 0; i < healthy.length; i++) await h.register(healthyMeetings[i], `${healthy[i].url}/hook`, h.token.id);

    // The hung receiver's events go first, so they are ahead in every queue.
    for (const meetingId of hungMeetings) h.publish(envelope(meetingId, 1));
    await hung.waitFor((r) => r.length >= 2, 2000, 'the hung receiver holding its slots');
    const started = performance.now();
    for (let sequence = 1; sequence <= 5; sequence++) {
      for (const meetingId of healthyMeetings) h.publish(envelope(meetingId, sequence));
    }
    await Promise.all(healthy.map((r) => r.waitForEvents(5, 4000)));
    const elapsed = performance.now() - started;

    expect(elapsed).to.be.below(4000); // all 250 well inside the hung attempts' 5 s timeout
    for (const receiver of healthy) {
      expect(receiver.events().map((c) => c.sequence)).to.deep.equal([1, 2, 3, 4, 5]);
      expect(receiver.events().every((c) => c.signatureValid)).to.equal(true);
    }
    // The per-receiver limit: never more than 2 requests parked at the hung receiver.
    expect(hung.received).to.have.length(2);
    expect(hung.openConnections()).to.equal(2);
  });

  it('reuses keep-alive connections to a healthy receiver', () => {
    // 5 sequential events per meeting, one meeting per receiver: one connection carried them all.
    for (const receiver of healthy) {
      expect(receiver.totalConnections()).to.equal(1);
    }
  });
});
