/**
 * The live view's seam between the meeting's backlog and its live events, made to happen on
 * purpose. The test plays meeting-session: it answers svc.meetings.get and svc.meetings.events and
 * publishes the events, and while the view reads the backlog it stores and publishes more: events
 * in the backlog that are published only now, events published during the read that a later page
 * also holds, and one stored and published after the last page was read. The view (live-events.ts,
 * served by Koa as the gateway does) must send every event once, in sequence order, from the first.
 * On the in-process bus and on NATS (the view and the meeting-session stand-in on connections of
 * their own, as in a deployment).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { expect } from 'chai';
import { answer, connectBus, type Bus } from '@notetaker/bus';
import {
  errors,
  evtMeeting,
  routes,
  type EventEnvelope,
  type EventType,
  type MeetingRecord,
} from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { natsForSuite } from '../../../../shared/bus/test/support/nats-server.js';
import { GrantWatch } from '../../src/identity/grants.js';
import type { WebDeps } from '../../src/web/context.js';
import { liveEvents } from '../../src/web/pages/live-events.js';
import { readEvents, type SseMessage } from './support/sse.js';

const MEETING_ID = 'meeting_1700000000000_SeamSeam01';

/** meeting-session as far as the live view sees it: a record, a log read by pages, published events. */
class MeetingSessionStandIn {
  readonly log: EventEnvelope[] = [];
  status: MeetingRecord['status'] = 'live';
  /** Runs between reading the log for a page and answering it: the n-th read (from 0), and its `after`. */
  duringRead: (read: number, after: number) => Promise<void> = async () => {};
  private reads = 0;

  constructor(private readonly bus: Bus) {
    answer(bus, routes.meetings.get, ({ meetingId }) => this.record(meetingId));
    answer(bus, routes.meetings.events, async ({ afterSequence, limit }) => {
      const page = this.log.filter((e) => e.sequence > afterSequence).slice(0, limit);
      await this.duringRead(this.reads++, afterSequence);
      return { events: page };
    });
  }

  /** Stores the next event (before it is published, as the registry does). */
  store(type: EventType = 'caption_partial'): EventEnvelope {
    const sequence = this.log.length + 1;
    const payload: Record<string, unknown> =
      type === 'meeting_status'
        ? { status: 'ended', previousStatus: 'live', reason: 'stopped' }
        : { captionId: 'c1', speaker: 'Ada', text: `word ${sequence}` };
    const event: EventEnvelope = {
      type,
      meetingId: MEETING_ID,
      sequence,
      timestamp: new Date().toISOString(),
      payload,
    };
    this.log.push(event);
    return event;
  }

  publish(...sequences: number[]): void {
    for (const n of sequences) this.bus.publish(evtMeeting(MEETING_ID, this.log[n - 1].type), this.log[n - 1]);
  }

  storeAndPublish(type?: EventType): void {
    this.publish(this.store(type).sequence);
  }

  private record(meetingId: string): MeetingRecord {
    if (meetingId !== MEETING_ID) throw errors.notFound();
    return {
      meetingId,
      status: this.status,
      platform: 'google_meet',
      title: 'Seam',
      startedAt: new Date().toISOString(),
      endedAt: null,
      participantCount: 1,
      segmentCount: 0,
      project: 'general',
      saveTranscript: false,
      documentPath: null,
      warnings: [],
      signedInAs: null,
      language: null,
      recording: null,
      transcription: { mode: 'captions', source: 'captions' },
    };
  }
}

/** The live view alone, signed in as one account, on its own bus connection. */
async function serveLiveView(bus: Bus): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const liveStreams = new Set<() => void>();
  const grants = new GrantWatch(bus, silentLogger(), {});
  const deps = { bus, liveStreams, grants } as unknown as WebDeps; // the live view uses nothing else
  const router = new Router();
  router.get(
    '/meetings/:meetingId/events',
    async (ctx, next) => {
      ctx.state.web = { account: { id: 'acct_seam' }, session: { _id: 'a'.repeat(64) } };
      await next();
    },
    liveEvents(deps),
  );
  const app = new Koa();
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const end of [...liveStreams]) end();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const ids = (messages: SseMessage[]) => messages.map((m) => (m.id === null ? m.event : m.id));
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

for (const kind of ['in-process bus', 'NATS'] as const) {
  describe(`web live view: the seam between backlog and live events (${kind})`, function () {
    let viewBus: Bus;
    let sessionBus: Bus;
    let session: MeetingSessionStandIn;
    let view: { baseUrl: string; close(): Promise<void> };
    let stopNats: (() => Promise<void>) | undefined;

    beforeEach(async function () {
      if (kind === 'NATS') {
        const nats = await natsForSuite(this);
        stopNats = nats.server ? () => nats.server!.stop() : undefined;
        viewBus = await connectBus({ natsUrl: nats.url, name: 'seam-view' });
        sessionBus = await connectBus({ natsUrl: nats.url, name: 'seam-session' });
      } else {
        viewBus = await connectBus({ name: 'seam' });
        sessionBus = viewBus;
      }
      session = new MeetingSessionStandIn(sessionBus);
      await sessionBus.flush();
      view = await serveLiveView(viewBus);
    });
    afterEach(async () => {
      await view?.close();
      await viewBus?.close();
      if (sessionBus !== viewBus) await sessionBus?.close();
      await stopNats?.();
    });

    it('opened late: every event from the first, once and in order, across every kind of overlap', async () => {
      // 1-3 stored and published before the view opens; 4-5 stored, their publication still under way.
      for (let i = 0; i < 5; i++) session.store();
      session.publish(1, 2, 3);
      session.duringRead = async (read) => {
        if (read === 0) {
          // The first page holds 1-5. Meanwhile 4-5 go out, and 6-7 are stored and go out: the
          // view hears 4-7 live while it replays, and reads 6-7 again on its next page.
          session.publish(4, 5);
          session.storeAndPublish();
          session.storeAndPublish();
        } else if (read === 1) {
          session.store(); // 8: on the next page, published only once that page was read
        } else if (read === 2) {
          session.publish(8);
        } else if (read === 3) {
          // The page that comes back empty: 9 is stored and published after that read, so only
          // the subscription has it. Then the meeting goes on (live, after the backlog) and ends.
          session.storeAndPublish();
          setTimeout(() => {
            session.storeAndPublish();
            session.status = 'ended';
            session.storeAndPublish('meeting_status');
          }, 100);
        }
        await sessionBus.flush();
      };
      const { messages, ended } = await readEvents(view.baseUrl, `/meetings/${MEETING_ID}/events`, '', () => false);

      expect(ended, 'the stream ends after the final status').to.equal(true);
      expect(ids(messages)).to.deep.equal([...upTo(8), 'replayed', 9, 10, 11, 'done']);
      expect(messages.filter((m) => m.id !== null).map((m) => m.data)).to.deep.equal(session.log);
    });

    it('reconnecting with Last-Event-ID in the middle of a burst: the rest, once and in order', async () => {
      for (let i = 0; i < 20; i++) session.storeAndPublish();
      session.duringRead = async (read) => {
        // While the backlog is read the meeting goes on (21-30: heard live, and read on the next
        // page), then it ends.
        if (read === 0) {
          for (let i = 0; i < 10; i++) session.storeAndPublish();
          setTimeout(() => {
            session.status = 'ended';
            session.storeAndPublish('meeting_status');
          }, 100);
        }
        await sessionBus.flush();
      };
      const { events, ended } = await readEvents(view.baseUrl, `/meetings/${MEETING_ID}/events`, '', () => false, 12);
      expect(ended).to.equal(true);
      expect(events.map((e) => e.id)).to.deep.equal(upTo(31).slice(12));
      expect(events.map((e) => e.data)).to.deep.equal(session.log.slice(12));
    });
  });
}
