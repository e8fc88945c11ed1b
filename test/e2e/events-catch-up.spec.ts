/**
 * A customer's callback receiver that is down for the middle of a meeting, in real Chromium against
 * both simulated platforms: it answers 503 while people talk, join and take turns, and the emitter
 * is set to try each event once (`WEBHOOK_MAX_ATTEMPTS=1`), so what it refused is lost to it for
 * good. Back up, it sees a gap in the sequence and rebuilds the meeting's stream from
 * GET /meetings/{id}/events, paging with nextAfter until an empty page says `ended`. What it
 * rebuilt must be exactly what a healthy receiver got: every event the meeting published, in
 * sequence, each envelope equal to the one a callback carried (taken here straight off the bus,
 * where the emitter hears them).
 */
import { expect } from 'chai';
import { evtMeeting, type EventEnvelope } from '@notetaker/contracts';
import { replies, type ReceivedCallback } from '../support/callback-receiver.js';
import { growWords } from '../simulators/index.js';
import { PLATFORMS, useWorld, type World } from './support/world.js';

interface EventsPage {
  meetingId: string;
  events: EventEnvelope[];
  nextAfter: number;
  ended: boolean;
}

describe('whole stack in real Chromium: a callback receiver down mid-meeting catches up by sequence', function () {
  this.timeout(90_000);
  const world = useWorld({ WEBHOOK_MAX_ATTEMPTS: '1' });

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: 503s while the meeting talks; the stream rebuilt from the events route equals a healthy receiver's`, async () => {
      const w = world();
      // Every event as published, before the meeting exists (its first status is published
      // during the start): the stream a receiver that never failed would have got.
      const published: EventEnvelope[] = [];
      const tap = w.t.stack.bus.subscribe(evtMeeting('*', '*'), (data) => {
        published.push(data as EventEnvelope);
      });
      let meetingId = '';
      let down = false;
      w.rx.respond((c) => (down && c.meetingId === meetingId ? replies.unavailable() : undefined));
      try {
        const m = await w.start(platform, { title: `Catch-up ${label}` });
        meetingId = m.meetingId;
        m.sim.join('Alice Example');
        await w.waitForStatus(meetingId, 'lobby');
        m.sim.admit();
        await w.waitForStatus(meetingId, 'live');
        await w.waitForCallback(meetingId, (c) => c.eventType === 'participant_joined', 'participant_joined');
        await m.sim.waitForBot((bot) => bot.captionsOn);
        await m.sim.speak('Alice Example', growWords('We ship on Friday.'));

        // Down for the middle: Bob joins and speaks (ending Alice's turn), Alice answers.
        const before = w.callbacks(meetingId).map((c) => c.json as EventEnvelope);
        down = true;
        m.sim.join('Bob Jones');
        await m.sim.speak('Bob Jones', growWords('Then I will update the release notes.'));
        await m.sim.speak('Alice Example', growWords('Thanks Bob.'));
        // Both finalized turns (Alice's, ended by Bob; Bob's, ended by Alice) were refused.
        await w.rx.waitFor(
          (received) =>
            received.filter((c) => refusedOf(c, meetingId) && c.eventType === 'segment_finalized').length >= 2,
          20_000,
          'two segments refused',
        );
        const duringOutage = await page(w, meetingId, before.at(-1)!.sequence);
        expect(duringOutage.ended).to.equal(false);
        down = false;

        expect((await w.stop(meetingId)).status).to.equal(200);
        await w.waitForStatus(meetingId, 'ended');

        // The receiver's view: what it acknowledged, with a hole where it was down.
        const acknowledged = w.callbacks(meetingId).map((c) => c.json as EventEnvelope);
        const refused = w.rx.received.filter((c) => refusedOf(c, meetingId));
        const seen = new Set(acknowledged.map((e) => e.sequence));
        expect(
          refused.every((c) => !seen.has(c.sequence!)),
          'refused events were not sent again',
        ).to.equal(true);

        // It catches up from the last event it had before the hole, in small pages.
        const rebuilt = [...before];
        let after = before.at(-1)!.sequence;
        let last: EventsPage;
        for (let pages = 0; ; pages++) {
          expect(pages, 'pages read').to.be.below(100);
          last = await page(w, meetingId, after, 5);
          rebuilt.push(...last.events);
          if (last.events.length === 0) break;
          after = last.nextAfter;
        }
        expect(last.ended, 'an empty page after the end says ended').to.equal(true);

        const healthy = published.filter((e) => e.meetingId === meetingId);
        expect(rebuilt.map((e) => e.sequence)).to.deep.equal(healthy.map((_, i) => i + 1));
        expect(rebuilt).to.deep.equal(healthy);
        expect(rebuilt.at(-1)).to.deep.include({ type: 'meeting_status' });
        expect(rebuilt.at(-1)!.payload.status).to.equal('ended');
        // Whatever reached the receiver, refused or not, is the route's event of that sequence.
        for (const c of w.rx.received.filter((c) => c.meetingId === meetingId))
          expect(c.json, `callback #${c.sequence}`).to.deep.equal(rebuilt[c.sequence! - 1]);
      } finally {
        w.rx.respond(null);
        await tap.unsubscribe();
      }
    });
  }
});

const refusedOf = (c: ReceivedCallback, meetingId: string) =>
  c.meetingId === meetingId && c.reply.kind === 'status' && c.reply.status === 503;

async function page(w: World, meetingId: string, after: number, limit?: number): Promise<EventsPage> {
  const res = await w.get(`/meetings/${meetingId}/events?after=${after}${limit ? `&limit=${limit}` : ''}`);
  expect(res.status).to.equal(200);
  return (await res.json()) as EventsPage;
}
