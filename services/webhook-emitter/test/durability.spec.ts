import { expect } from 'chai';
import { replies, startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { startEventLogStandIn, type EventLogStandIn } from './support/event-log-stand-in.js';
import { envelope, newMeetingId, startHarness, waitForLog, type Harness, type Token } from './support/harness.js';

describe('webhook emitter: durability (in process)', function () {
  this.timeout(30_000);
  let h: Harness;
  let token: Token;
  let rx: CallbackReceiver;
  let log: EventLogStandIn;

  before(async () => {
    h = await startHarness({ WEBHOOK_SWEEP_INTERVAL_MS: '60000' });
    token = await h.createToken();
    log = await startEventLogStandIn(h.bus, h.dataDir);
  });
  after(async () => {
    await log.stop();
    await h.stop();
  });
  beforeEach(async () => {
    rx = await startCallbackReceiver({ secret: token.signingSecret });
  });
  afterEach(() => rx.close());

  async function meeting(): Promise<string> {
    const meetingId = newMeetingId();
    await h.register(meetingId, `${rx.url}/hook`, token.id);
    return meetingId;
  }

  it('has the event in its store while the first attempt is under way', async () => {
    const meetingId = await meeting();
    rx.script(replies.delay(400));
    h.publish(envelope(meetingId, 1));
    await rx.waitFor((r) => r.length === 1);
    const during = await h.deliveries(token.caller, meetingId);
    expect(during.deliveries.map((d) => [d.sequence, d.outcome])).to.deep.equal([[1, 'pending']]);
    await waitForLog(h, token.caller, meetingId, (l) => l.deliveries[0]?.outcome === 'delivered');
  });

  it('resumes pending deliveries after a restart, in order, with their attempts kept', async () => {
    await h.restartEmitter({ WEBHOOK_RETRY_DELAYS_MS: '300' });
    const meetingId = await meeting();
    rx.setDefault(replies.status(500));
    for (const sequence of [1, 2, 3]) h.publish(envelope(meetingId, sequence));
    await waitForLog(
      h,
      token.caller,
      meetingId,
      (l) => l.deliveries.length === 3 && l.deliveries[0].attempts.length >= 1,
    );
    await h.restartEmitter({ WEBHOOK_RETRY_DELAYS_MS: '300' });
    rx.setDefault(replies.ok());
    const events = await rx.waitForEvents(3, 5000);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
    const after = await waitForLog(h, token.caller, meetingId, (l) =>
      l.deliveries.every((d) => d.outcome === 'delivered'),
    );
    expect(after.deliveries[0].attempts.length).to.be.at.least(2);
    expect(after.deliveries[0].attempts.at(-1)?.status).to.equal(200);
  });

  it('fetches an event it never got live from the event log when the next one shows the gap', async () => {
    const meetingId = await meeting();
    await log.publish(envelope(meetingId, 1));
    await log.append(envelope(meetingId, 2)); // its live publication was lost
    await log.publish(envelope(meetingId, 3));
    const events = await rx.waitForEvents(3, 5000);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
  });

  it('catches up the events published while it was down', async () => {
    const meetingId = await meeting();
    await log.publish(envelope(meetingId, 1));
    await rx.waitForEvents(1);
    await h.stopEmitter();
    // Published while nobody listens: lost on the bus, kept in meeting-session's log.
    await log.publish(envelope(meetingId, 2));
    await log.publish(envelope(meetingId, 3, 'meeting_status', { status: 'ended' }));
    await h.startEmitter();
    const events = await rx.waitForEvents(3, 5000);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
  });

  it('records a sequence that the event log does not have as missed and goes on', async () => {
    const meetingId = await meeting();
    await log.publish(envelope(meetingId, 1));
    await log.publish(envelope(meetingId, 3)); // 2 exists nowhere
    const events = await rx.waitForEvents(2, 5000);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 3]);
    const after = await waitForLog(
      h,
      token.caller,
      meetingId,
      (l) => l.deliveries.length === 3 && l.deliveries.every((d) => d.outcome !== 'pending'),
    );
    expect(after.deliveries.map((d) => [d.sequence, d.outcome])).to.deep.equal([
      [1, 'delivered'],
      [2, 'missed'],
      [3, 'delivered'],
    ]);
    expect(after.deliveries[1].reason).to.equal("not in meeting-session's event log");
  });
});
