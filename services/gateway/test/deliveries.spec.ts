/**
 * GET /api/v1/meetings/:meetingId/deliveries on the real stack: a meeting started over REST is
 * run by meeting-session's actor against the scripted meeting platform (the only stand-in), its
 * events are signed and delivered by webhook-emitter to a real local receiver, and the owner
 * reads the attempts back.
 */
import { expect } from 'chai';
import { replies } from '../../../test/support/callback-receiver.js';
import { eventually } from '../../../test/support/wait.js';
import { stackWithReceiverPerSuite } from './support/meeting-with-receiver.js';
import type { WebhookDeliveriesReply } from '@notetaker/contracts';

type Log = WebhookDeliveriesReply;

describe('delivery log REST', function () {
  this.timeout(30_000);
  const stack = stackWithReceiverPerSuite({ WEBHOOK_RETRY_DELAYS_MS: '50', WEBHOOK_RETRY_JITTER: '0' });
  let meetingId: string;

  before(async () => {
    stack.rx.script(replies.status(500)); // the first event needs a second attempt
    const { meeting, ...started } = await stack.startMeeting();
    meetingId = started.meetingId;
    meeting.segment({ speaker: 'Ada', text: 'Hello there' });
  });

  async function logOf(apiKey: string, query = ''): Promise<Response> {
    return stack.t.api(`/meetings/${meetingId}/deliveries${query}`, { apiKey });
  }

  it("shows the owner each event's attempts and outcome", async () => {
    await stack.rx.waitFor((r) => r.some((c) => c.eventType === 'segment_finalized'), 10_000, 'the segment delivered');
    const log = await eventually(
      async () => {
        const res = await logOf(stack.owner.apiKey);
        expect(res.status).to.equal(200);
        const read = (await res.json()) as Log;
        // The log as last read is the failure's message.
        if (!read.deliveries.some((d) => d.type === 'segment_finalized' && d.outcome === 'delivered')) {
          throw new Error(JSON.stringify(read));
        }
        return read;
      },
      'the segment logged as delivered',
      10_000,
    );
    expect(log.meetingId).to.equal(meetingId);
    expect(log.callbackUrl).to.equal(`${stack.rx.url}/hook`);
    expect(log.callbackState).to.equal('active');
    const first = log.deliveries[0];
    expect(first.sequence).to.equal(1);
    expect(first.eventId).to.equal(`${meetingId}:1`);
    expect(first.attempts.map((a) => a.status)).to.deep.equal([500, 200]);
    expect(first.attempts.map((a) => a.deliveryId)).to.deep.equal(
      stack.rx.received.filter((c) => c.sequence === 1).map((c) => c.deliveryId),
    );
    for (const attempt of first.attempts) {
      expect(Date.parse(attempt.at)).to.not.be.NaN;
      expect(attempt.durationMs).to.be.a('number');
    }
    expect(stack.rx.received.every((c) => c.signatureValid)).to.equal(true);
  });

  it('pages with afterSequence and limit', async () => {
    const res = await logOf(stack.owner.apiKey, '?afterSequence=1&limit=1');
    expect(res.status).to.equal(200);
    const log = (await res.json()) as Log;
    expect(log.deliveries.map((d) => d.sequence)).to.deep.equal([2]);
    expect(log.nextAfterSequence).to.equal(2);
  });

  it('answers 404 Not found to another key, for an unknown meeting and for a malformed id', async () => {
    for (const res of [
      await logOf(stack.other.apiKey),
      await stack.t.api(`/meetings/meeting_${Date.now()}_abcdefghij/deliveries`, { apiKey: stack.owner.apiKey }),
      await stack.t.api('/meetings/not-a-meeting/deliveries', { apiKey: stack.owner.apiKey }),
    ]) {
      expect(res.status).to.equal(404);
      expect(await res.json()).to.deep.equal({ error: 'Not found' });
    }
  });

  it('answers 400 naming the bad query field, and 401 without a key', async () => {
    const bad = await logOf(stack.owner.apiKey, '?limit=0');
    expect(bad.status).to.equal(400);
    expect(await bad.json()).to.deep.equal({ error: 'limit must be at least 1' });
    expect((await stack.t.api(`/meetings/${meetingId}/deliveries`)).status).to.equal(401);
  });
});
