import { expect } from 'chai';
import { replies, startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { simulatorCertificate } from '../../../test/simulators/certificate.js';
import { signBody } from '../src/delivery/signature.js';
import { envelope, harnessPerSuite, newMeetingId, waitForLog } from './support/harness.js';
import { eventuallyPasses, sleep } from '../../../test/support/wait.js';
import { startClosingReceiver } from './support/closing-receiver.js';

function captionPartial(meetingId: string, sequence: number, captionId: string, text: string) {
  return envelope(meetingId, sequence, 'caption_partial', {
    captionId,
    speaker: 'Ada',
    text,
    timestamp: new Date().toISOString(),
  });
}

describe('webhook emitter: delivery to a real receiver', () => {
  const h = harnessPerSuite();
  let rx: CallbackReceiver;

  beforeEach(async () => {
    rx = await startCallbackReceiver({ secret: h.token.signingSecret });
  });
  afterEach(() => rx.close());

  async function meeting(path = '/hook'): Promise<string> {
    const meetingId = newMeetingId();
    await h.register(meetingId, `${rx.url}${path}`, h.token.id);
    return meetingId;
  }

  /** Runs `body` on an emitter restarted with `env`, then restarts it with the suite's settings again. */
  async function withEmitterEnv(env: Record<string, string>, body: () => Promise<void>): Promise<void> {
    await h.restartEmitter(env);
    try {
      await body();
    } finally {
      await h.restartEmitter();
    }
  }

  it("signs like GitHub's published HMAC-SHA256 test vector", () => {
    expect(signBody("It's a Secret to Everybody", 'Hello, World!')).to.equal(
      'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('POSTs the envelope with every header, signed over exactly the bytes received', async () => {
    const meetingId = await meeting();
    const sent = envelope(meetingId, 1, 'segment_finalized', {
      speaker: 'Zoë',
      text: 'naïve café ☕',
      timestamp: '2025-01-02T03:04:05.006Z',
    });
    const before = Math.floor(Date.now() / 1000);
    h.publish(sent);
    const [got] = await rx.waitForEvents(1);
    expect(got.method).to.equal('POST');
    expect(got.path).to.equal('/hook');
    expect(got.json).to.deep.equal(sent);
    expect(got.signatureValid).to.equal(true);
    expect(got.headers['x-service-signature']).to.equal(signBody(h.token.signingSecret, got.rawBody));
    expect(got.headers['content-type']).to.equal('application/json');
    expect(got.headers['user-agent']).to.match(/^notetaker-webhooks\//);
    expect(got.headers['x-service-event']).to.equal('segment_finalized');
    expect(got.headers['x-service-meeting-id']).to.equal(meetingId);
    expect(got.headers['x-service-event-id']).to.equal(`${meetingId}:1`);
    expect(got.headers['x-service-delivery-id']).to.match(/^[0-9a-f-]{36}$/);
    const timestamp = Number(got.headers['x-service-timestamp']);
    expect(timestamp).to.be.within(before, Math.ceil(Date.now() / 1000));
    expect(Number(got.headers['content-length'])).to.equal(got.rawBody.length);
  });

  it('keeps the event id and changes the delivery id across 3 failures then success', async () => {
    const meetingId = await meeting();
    rx.script(replies.status(500), replies.status(502), replies.reset());
    h.publish(envelope(meetingId, 1));
    await rx.waitForEvents(1);
    expect(rx.received).to.have.length(4);
    expect(new Set(rx.received.map((c) => c.eventId))).to.deep.equal(new Set([`${meetingId}:1`]));
    expect(new Set(rx.received.map((c) => c.deliveryId)).size).to.equal(4);
    expect(new Set(rx.received.map((c) => c.rawBody.toString('hex'))).size).to.equal(1);
    expect(rx.received.every((c) => c.signatureValid)).to.equal(true);

    const log = await waitForLog(h, h.token.caller, meetingId, (l) => l.deliveries[0]?.outcome === 'delivered');
    const attempts = log.deliveries[0].attempts;
    expect(attempts.map((a) => a.status)).to.deep.equal([500, 502, null, 200]);
    expect(attempts[2].error).to.match(/connection reset|connection closed|network/);
    expect(attempts.map((a) => a.deliveryId)).to.deep.equal(rx.received.map((c) => c.deliveryId));
  });

  it('delivers 1, 2, 3 in order when event 2 fails twice', async () => {
    const meetingId = await meeting();
    let failuresLeft = 2;
    rx.respond((c) => (c.sequence === 2 && failuresLeft-- > 0 ? replies.status(503) : undefined));
    for (const sequence of [1, 2, 3]) h.publish(envelope(meetingId, sequence));
    const events = await rx.waitForEvents(3);
    expect(events.map((c) => c.sequence)).to.deep.equal([1, 2, 3]);
    // Nothing of 3 went out before 2 succeeded.
    const firstOf3 = rx.received.findIndex((c) => c.sequence === 3);
    const successOf2 = rx.received.findIndex(
      (c) => c.sequence === 2 && c.reply.kind === 'status' && c.reply.status === 200,
    );
    expect(firstOf3).to.be.greaterThan(successOf2);
    expect(rx.received.map((c) => c.sequence)).to.deep.equal([1, 2, 2, 2, 3]);
  });

  it('stops the callback on 410 Gone: nothing more is sent and the log says why', async () => {
    const meetingId = await meeting();
    rx.script(replies.ok(), replies.gone());
    h.publish(envelope(meetingId, 1));
    h.publish(envelope(meetingId, 2));
    h.publish(envelope(meetingId, 3));
    const log = await waitForLog(
      h,
      h.token.caller,
      meetingId,
      // The later delivery is marked gone right after the callback is.
      (l) => l.callbackState === 'gone' && l.deliveries.length === 3 && l.deliveries[2].outcome !== 'pending',
    );
    h.publish(envelope(meetingId, 4));
    // Time for #4 to be sent, were it to be.
    await sleep(200);
    expect(rx.received.map((c) => c.sequence)).to.deep.equal([1, 2]);
    expect(log.deliveries.map((d) => d.outcome)).to.deep.equal(['delivered', 'gone', 'gone']);
    expect(log.deliveries[1].attempts[0].status).to.equal(410);
    expect(log.deliveries[2].attempts).to.have.length(0);
    expect((await h.register(meetingId, `${rx.url}/hook`, h.token.id)).state).to.equal('gone');
  });

  it('honours Retry-After on 429 instead of the (shorter) schedule', async () => {
    const meetingId = await meeting();
    rx.script(replies.tooManyRequests('1'));
    h.publish(envelope(meetingId, 1));
    await rx.waitForEvents(1, 5000);
    const gap = rx.received[1].receivedAt - rx.received[0].receivedAt;
    expect(gap).to.be.at.least(990);
    expect(gap).to.be.below(1800);
  });

  it('gives up on a receiver that never answers: timeout logged, no socket left open', async () => {
    await withEmitterEnv({ WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_DELAYS_MS: '2000' }, async () => {
      const meetingId = await meeting();
      rx.script(replies.hang());
      h.publish(envelope(meetingId, 1));
      const log = await waitForLog(h, h.token.caller, meetingId, (l) => (l.deliveries[0]?.attempts.length ?? 0) === 1);
      const [attempt] = log.deliveries[0].attempts;
      expect(attempt.status).to.equal(null);
      expect(attempt.error).to.equal('no answer within 300 ms');
      expect(attempt.durationMs).to.be.within(290, 1000);
      expect(log.deliveries[0].outcome).to.equal('pending');
      await rx.waitFor(() => rx.openConnections() === 0, 1000, 'the hung socket closed');
      await rx.waitForEvents(1, 5000); // the retry gets through
    });
  });

  it('does not follow a redirect: a 302 is a failed attempt and the target never hears of it', async () => {
    const target = await startCallbackReceiver();
    try {
      const meetingId = await meeting();
      rx.script(replies.redirect(`${target.url}/elsewhere`), replies.redirect(`${target.url}/elsewhere`, 307));
      h.publish(envelope(meetingId, 1));
      await rx.waitForEvents(1);
      const log = await waitForLog(h, h.token.caller, meetingId, (l) => l.deliveries[0]?.outcome === 'delivered');
      expect(log.deliveries[0].attempts.map((a) => [a.status, a.error])).to.deep.equal([
        [302, 'redirect not followed'],
        [307, 'redirect not followed'],
        [200, null],
      ]);
      expect(target.received).to.have.length(0);
    } finally {
      await target.close();
    }
  });

  it('checks the certificate of an https receiver: a self-signed one is refused and named in the log', async () => {
    const secure = await startCallbackReceiver({ tls: await simulatorCertificate() });
    try {
      const meetingId = newMeetingId();
      await h.register(meetingId, `${secure.url}/hook`, h.token.id);
      h.publish(envelope(meetingId, 1));
      const log = await waitForLog(h, h.token.caller, meetingId, (l) => (l.deliveries[0]?.attempts.length ?? 0) > 0);
      expect(log.deliveries[0].attempts[0]).to.include({ status: null, error: 'TLS certificate not trusted' });
      expect(secure.received).to.have.length(0);
    } finally {
      await secure.close();
    }
  });

  it('dead-letters after the last attempt and goes on with the next event', async () => {
    await withEmitterEnv({ WEBHOOK_MAX_ATTEMPTS: '3' }, async () => {
      const meetingId = await meeting();
      rx.respond((c) => (c.sequence === 1 ? replies.status(500) : undefined));
      h.publish(envelope(meetingId, 1));
      h.publish(envelope(meetingId, 2));
      await rx.waitForEvents(1);
      const log = await waitForLog(h, h.token.caller, meetingId, (l) => l.deliveries[1]?.outcome === 'delivered');
      expect(log.deliveries[0].outcome).to.equal('dead_lettered');
      expect(log.deliveries[0].attempts).to.have.length(3);
      expect(log.deliveries[0].reason).to.equal('gave up after 3 attempts');
      expect(rx.received.map((c) => c.sequence)).to.deep.equal([1, 1, 1, 2]);
    });
  });

  it('drops superseded caption_partial events while the receiver fails, and only those', async () => {
    await withEmitterEnv({ WEBHOOK_RETRY_DELAYS_MS: '400' }, async () => {
      const meetingId = await meeting();
      rx.script(replies.status(500));
      const caption = (sequence: number, captionId: string, text: string) =>
        captionPartial(meetingId, sequence, captionId, text);
      h.publish(envelope(meetingId, 1, 'participant_joined', { name: 'Ada' }));
      await rx.waitFor((r) => r.length === 1);
      h.publish(caption(2, 'c1', 'Hel'));
      h.publish(caption(3, 'c1', 'Hello'));
      h.publish(caption(4, 'c2', 'Bye'));
      h.publish(caption(5, 'c1', 'Hello there'));
      h.publish(envelope(meetingId, 6));
      await rx.waitForEvents(4, 5000);
      expect(rx.events().map((c) => c.sequence)).to.deep.equal([1, 4, 5, 6]);
      const log = await waitForLog(
        h,
        h.token.caller,
        meetingId,
        (l) => l.deliveries.length === 6 && l.deliveries.every((d) => d.outcome !== 'pending'),
      );
      expect(log.deliveries.map((d) => d.outcome)).to.deep.equal([
        'delivered',
        'dropped',
        'dropped',
        'delivered',
        'delivered',
        'delivered',
      ]);
      // #2 is replaced by #3 or #5 depending on when it was looked at; #3 only by #5.
      expect(log.deliveries[1].reason).to.match(/^superseded by caption_partial #[35] while the receiver was failing$/);
      expect(log.deliveries[2].reason).to.match(/^superseded by caption_partial #5 /);
    });
  });

  it("a kept-alive connection is let go before the receiver's announced idle close: the next event meets no closed connection", async () => {
    const closing = await startClosingReceiver(2000);
    try {
      const meetingId = newMeetingId();
      await h.register(meetingId, `${closing.url}/hook`, h.token.id);
      const caption = (sequence: number, text: string) => captionPartial(meetingId, sequence, 'c1', text);
      h.publish(envelope(meetingId, 1, 'participant_joined', { name: 'Ada' }));
      await eventuallyPasses(() => expect(closing.delivered).to.deep.equal([1]));
      await sleep(2100); // the receiver's idle close is due
      h.publish(caption(2, 'Hel'));
      h.publish(caption(3, 'Hello'));
      h.publish(envelope(meetingId, 4));
      await eventuallyPasses(() => expect(closing.delivered).to.deep.equal([1, 2, 3, 4]));
      expect(closing.cutOff, 'requests met by the close').to.equal(0);
      const log = await waitForLog(h, h.token.caller, meetingId, (l) => l.deliveries.length === 4);
      expect(log.deliveries.map((d) => [d.outcome, d.attempts.length])).to.deep.equal([
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
        ['delivered', 1],
      ]);
    } finally {
      await closing.close();
    }
  });

  it('sends nothing for a meeting started from the UI (no key, so nothing to sign with)', async () => {
    const meetingId = newMeetingId();
    expect((await h.register(meetingId, `${rx.url}/hook`, null)).state).to.equal('no_key');
    h.publish(envelope(meetingId, 1));
    // Time for it to be sent, were it to be.
    await sleep(200);
    expect(rx.received).to.have.length(0);
  });

  it('counts deliveries by outcome with a latency histogram in /metrics', async () => {
    const meetingId = await meeting();
    h.publish(envelope(meetingId, 1));
    await rx.waitForEvents(1);
    await waitForLog(h, h.token.caller, meetingId, (l) => l.deliveries[0]?.outcome === 'delivered');
    const text = await h.metrics.metrics();
    expect(text).to.match(/webhook_deliveries_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/);
    expect(text).to.match(/webhook_attempt_duration_seconds_bucket\{[^}]*result="success"/);
    expect(text).to.match(/webhook_delivery_latency_seconds_count\{[^}]*\} [1-9]/);
  });
});
