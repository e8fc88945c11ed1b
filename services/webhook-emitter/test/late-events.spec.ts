/**
 * An event after the meeting's final status: the recording_saved that meeting-session appends
 * when storage was slow, minutes after `ended`. The lane closes after the final status (nothing
 * stays open for meetings that record nothing) and the later event reopens it: stored, signed,
 * retried and sent in sequence like every event, once, whether it comes live, after a gap, or
 * while the emitter was down. A real receiver, the real service, the event log's stand-in.
 */
import { expect } from 'chai';
import type { EventEnvelope } from '@notetaker/contracts';
import { replies, startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { eventually, sleep } from '../../../test/support/wait.js';
import { startEventLogStandIn, type EventLogStandIn } from './support/event-log-stand-in.js';
import { envelope, newMeetingId, startHarness, waitForLog, type Harness, type Token } from './support/harness.js';

describe('webhook emitter: an event after the final status (a recording stored late)', function () {
  this.timeout(60_000);
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

  const metric = async (name: string): Promise<number> => {
    const line = (await h.metrics.metrics()).split('\n').find((l) => l.startsWith(`${name}{`));
    return line === undefined ? NaN : Number(line.split(' ').at(-1));
  };
  /** Every lane is closed: the meetings of this suite have nothing left to send. */
  const lanesClosed = () =>
    eventually(async () => {
      const open = await metric('webhook_open_lanes');
      if (open !== 0) throw new Error(`${open} lanes open`);
      return true;
    }, 'every lane closed');

  const recordingSaved = (meetingId: string, sequence: number): EventEnvelope =>
    envelope(meetingId, sequence, 'recording_saved', {
      bytes: 48_213,
      durationMs: 61_000,
      format: 'audio/ogg',
      status: 'incomplete',
      url: `/api/v1/meetings/${meetingId}/recording`,
      gaps: [{ startMs: 12_000, endMs: 19_500, reason: 'spool_full' }],
    });

  /** A meeting of two events, the second its final status, delivered; its lane closed. */
  async function endedMeeting(): Promise<string> {
    const meetingId = newMeetingId();
    await h.register(meetingId, `${rx.url}/hook`, token.id);
    await log.publish(envelope(meetingId, 1));
    await log.publish(envelope(meetingId, 2, 'meeting_status', { status: 'ended', previousStatus: 'leaving' }));
    await rx.waitForEvents(2);
    await lanesClosed();
    return meetingId;
  }

  it('closes the lane after the final status, then delivers a recording_saved minutes later once, signed and in sequence', async () => {
    const reopenedBefore = await metric('webhook_lanes_reopened_total');
    const meetingId = await endedMeeting();
    await sleep(500); // "minutes later": the lane is closed, nothing of it in memory
    const late = recordingSaved(meetingId, 3);
    await log.publish(late);
    const events = await rx.waitForEvents(3);
    expect(events.map((c) => [c.sequence, c.eventType])).to.deep.equal([
      [1, 'segment_finalized'],
      [2, 'meeting_status'],
      [3, 'recording_saved'],
    ]);
    expect(events.every((c) => c.signatureValid)).to.equal(true);
    expect(events[2].json).to.deep.equal(late);
    expect(events[2].eventId).to.equal(`${meetingId}:3`);
    await lanesClosed();
    expect(await metric('webhook_lanes_reopened_total')).to.equal(reopenedBefore + 1);

    // The same event again (a redelivery on the bus, a catch-up): known, not sent twice.
    h.publish(late);
    await sleep(400);
    expect(rx.received).to.have.length(3);
    await lanesClosed();
    const after = await waitForLog(h, token.caller, meetingId, (l) => l.deliveries.length === 3);
    expect(after.deliveries.map((d) => [d.sequence, d.outcome])).to.deep.equal([
      [1, 'delivered'],
      [2, 'delivered'],
      [3, 'delivered'],
    ]);
  });

  it('retries the late event like any other, its event id the same on every attempt', async () => {
    const meetingId = await endedMeeting();
    rx.script(replies.status(503), replies.reset());
    await log.publish(recordingSaved(meetingId, 3));
    const events = await rx.waitForEvents(3);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
    const attempts = rx.received.filter((c) => c.sequence === 3);
    expect(attempts).to.have.length(3);
    expect(new Set(attempts.map((c) => c.eventId)).size).to.equal(1);
    expect(new Set(attempts.map((c) => c.deliveryId)).size).to.equal(3);
    const after = await waitForLog(h, token.caller, meetingId, (l) => l.deliveries[2]?.outcome === 'delivered');
    expect(after.deliveries[2].attempts.map((a) => a.status)).to.deep.equal([503, null, 200]);
    await lanesClosed();
  });

  it('fills the gap between the final status and a later event from the event log', async () => {
    const meetingId = await endedMeeting();
    await log.append(envelope(meetingId, 3, 'document_saved', { documentPath: 'x.md' })); // lost on the bus
    await log.publish(recordingSaved(meetingId, 4));
    const events = await rx.waitForEvents(4);
    expect(events.map((c) => [c.sequence, c.eventType])).to.deep.equal([
      [1, 'segment_finalized'],
      [2, 'meeting_status'],
      [3, 'document_saved'],
      [4, 'recording_saved'],
    ]);
    await lanesClosed();
  });

  it('delivers a late event published while the emitter was down, once it is back', async () => {
    const meetingId = await endedMeeting();
    await h.stopEmitter();
    await log.publish(recordingSaved(meetingId, 3)); // nobody listens: only the event log has it
    await h.startEmitter();
    const events = await rx.waitForEvents(3, 10_000);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
    await lanesClosed();
  });

  it('keeps a reopened lane across a restart while its late event waits for a failing receiver', async () => {
    const meetingId = await endedMeeting();
    rx.setDefault(replies.status(500));
    await log.publish(recordingSaved(meetingId, 3));
    await waitForLog(h, token.caller, meetingId, (l) => (l.deliveries[2]?.attempts.length ?? 0) >= 1);
    await h.restartEmitter();
    rx.setDefault(replies.ok());
    await waitForLog(h, token.caller, meetingId, (l) => l.deliveries[2]?.outcome === 'delivered');
    expect(rx.events().map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
    await lanesClosed();
  });

  it('opens no lane for events of meetings without a callback, nor for a UI meeting after its end', async () => {
    const unregistered = newMeetingId();
    const ui = newMeetingId();
    await h.register(ui, `${rx.url}/hook`, null);
    for (const meetingId of [unregistered, ui]) {
      await log.publish(envelope(meetingId, 1, 'meeting_status', { status: 'ended', previousStatus: 'live' }));
      await log.publish(recordingSaved(meetingId, 2));
    }
    await sleep(400);
    expect(rx.received).to.have.length(0);
    expect(await metric('webhook_open_lanes')).to.equal(0);
  });
});
