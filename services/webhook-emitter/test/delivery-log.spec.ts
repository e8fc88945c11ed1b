import { expect } from 'chai';
import { routes, ServiceError } from '@notetaker/contracts';
import { startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { envelope, newMeetingId, startHarness, waitForLog, type Harness, type Token } from './support/harness.js';

describe('webhook emitter: delivery log over the bus (svc.webhooks.deliveries)', () => {
  let h: Harness;
  let owner: Token;
  let other: Token;
  let rx: CallbackReceiver;
  let meetingId: string;

  before(async () => {
    h = await startHarness();
    owner = await h.createToken();
    other = await h.createToken();
    rx = await startCallbackReceiver({ secret: owner.signingSecret });
    meetingId = newMeetingId();
    await h.register(meetingId, `${rx.url}/hook`, owner.id);
    for (let sequence = 1; sequence <= 5; sequence++) h.publish(envelope(meetingId, sequence));
    await waitForLog(
      h,
      owner.caller,
      meetingId,
      (l) => l.deliveries.filter((d) => d.outcome === 'delivered').length === 5,
    );
  });
  after(async () => {
    await h.stop();
    await rx.close();
  });

  async function status(promise: Promise<unknown>): Promise<[number, string]> {
    try {
      await promise;
      return [200, ''];
    } catch (err) {
      return [(err as ServiceError).status, (err as ServiceError).message];
    }
  }

  it('gives the owner every event with its attempts', async () => {
    const log = await h.deliveries(owner.caller, meetingId);
    expect(log.callbackState).to.equal('active');
    expect(log.deliveries.map((d) => d.sequence)).to.deep.equal([1, 2, 3, 4, 5]);
    for (const entry of log.deliveries) {
      expect(entry.outcome).to.equal('delivered');
      expect(entry.attempts).to.have.length(1);
      expect(entry.attempts[0]).to.include({ status: 200, error: null });
    }
    expect(log.nextAfterSequence).to.equal(null);
  });

  it('pages by sequence', async () => {
    const first = await h.deliveries(owner.caller, meetingId, { limit: 2 });
    expect(first.deliveries.map((d) => d.sequence)).to.deep.equal([1, 2]);
    const second = await h.deliveries(owner.caller, meetingId, { afterSequence: first.nextAfterSequence!, limit: 2 });
    expect(second.deliveries.map((d) => d.sequence)).to.deep.equal([3, 4]);
  });

  it('answers the same 404 to another key, the UI and for an unknown meeting', async () => {
    expect(await status(h.deliveries(other.caller, meetingId))).to.deep.equal([404, 'Not found']);
    expect(await status(h.deliveries({ kind: 'ui', accountId: 'acc_1' }, meetingId))).to.deep.equal([404, 'Not found']);
    expect(await status(h.deliveries(owner.caller, newMeetingId()))).to.deep.equal([404, 'Not found']);
  });

  it('answers 400 for a malformed request', async () => {
    const [code] = await status(h.bus.request(routes.webhooks.deliveries.subject, { meetingId }));
    expect(code).to.equal(400);
  });
});
