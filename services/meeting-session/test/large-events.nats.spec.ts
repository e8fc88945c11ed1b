/**
 * Long captions over a real nats-server: what a busy meeting emits at once can be far more than
 * one NATS message (1 MB by default) holds. Record requests and catch-up replies stay under it.
 */
import { expect } from 'chai';
import type { EventEnvelope } from '@notetaker/contracts';
import { natsForSuite, type NatsServerHandle } from '@notetaker/bus/test-support';
import { startHarness, type Harness } from './support/harness.js';

const CAPTIONS = 60;
// Quotes and a 3-byte character: 39,000 characters of text, 91 KB of event JSON as UTF-8 and
// twice the characters once a request escapes that JSON again; 5.5 MB in all.
const TEXT = '"語"'.repeat(13_000);

describe('large events over NATS', function () {
  this.timeout(60_000);
  let server: NatsServerHandle | null = null;
  let h: Harness | undefined;

  before(async function () {
    const nats = await natsForSuite(this);
    server = nats.server;
    h = await startHarness({}, { natsUrl: nats.url });
  });
  after(async () => {
    await h?.stop();
    await server?.stop();
  });

  it('stores and publishes a burst of 5.5 MB of quoted, multibyte captions in order, and replays it in pages', async () => {
    const { meetingId } = await h!.start();
    await h!.waitForEvent(meetingId, (e) => e.payload.status === 'live');
    const bot = await h!.driver.meeting(meetingId);
    for (let i = 0; i < CAPTIONS; i++) bot.caption({ captionId: `c${i}`, speaker: 'Ada', text: `${i} ${TEXT}` });
    const last = await h!.waitForEvent(meetingId, (e) => e.payload.captionId === `c${CAPTIONS - 1}`, 30_000);

    const published = h!.events(meetingId).filter((e) => e.type === 'caption_partial');
    expect(published.map((e) => e.payload.captionId)).to.deep.equal(
      Array.from({ length: CAPTIONS }, (_, i) => `c${i}`),
    );
    const replayed: EventEnvelope[] = [];
    for (let after = 0; ;) {
      const { events } = await h!.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: after });
      if (events.length === 0) break;
      replayed.push(...events);
      after = events.at(-1)!.sequence;
    }
    expect(replayed.map((e) => e.sequence)).to.deep.equal(replayed.map((_, i) => i + 1));
    expect(replayed.at(-1)!.sequence).to.be.at.least(last.sequence);
    expect(replayed.find((e) => e.sequence === last.sequence)!.payload.text).to.equal(last.payload.text);
  });
});
