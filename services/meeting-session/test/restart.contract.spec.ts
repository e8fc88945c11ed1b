/** Meetings whose actor is gone: a killed process, and a service that stops. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { EventEnvelope } from '@notetaker/contracts';
import { batchOf, protocol } from '../src/protocol.js';
import { spawnSession } from './support/child.js';
import {
  eventually,
  freshMeetUrl,
  liveAfterSaying,
  startHarness,
  TOKEN_CALLER,
  type Harness,
} from './support/harness.js';

describe('meeting-session restarts', () => {
  it('ends the meetings of a killed process in error worker_lost on restart, and frees their URLs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'meeting-session-crash-'));
    const url = freshMeetUrl();
    const child = spawnSession('stack', { DATA_DIR: dataDir, MEETING_URL: url, FLUSH_INTERVAL_MS: '100000' });
    let h: Harness | null = null;
    try {
      const { meetingId } = (await child.waitFor((f) => typeof f.meetingId === 'string')) as { meetingId: string };
      // Let the bot get in (joining -> lobby -> live are stored) before the crash.
      await child.waitFor((f) => f.meetingId === meetingId && f.status === 'live', 20_000, 'the meeting live');
      await child.kill();

      h = await startHarness({}, { dataDir });
      const record = await h.request<{ status: string; endedAt: string | null }>('get', {
        caller: TOKEN_CALLER,
        meetingId,
      });
      expect(record.status).to.equal('error');
      expect(record.endedAt).to.be.a('string');
      const { events } = await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 });
      expect(events.map((e) => e.sequence)).to.deep.equal(events.map((_, i) => i + 1));
      expect(events.map((e) => e.payload.status).filter(Boolean)).to.deep.equal(['joining', 'lobby', 'live', 'error']);
      expect(events.at(-1)!.payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'worker_lost' });
      expect(events.at(-2)!.type).to.equal('document_saved'); // the transcript so far is kept
      // Should the old worker still be around (a partition, not a death), it is fenced: its writes
      // are refused and its next heartbeat tells it to drop the meeting.
      const oldWorker = 'worker_from_before';
      const late = await h.bus.request<{ fenced: string[] }>(protocol.record.subject, {
        workerId: oldWorker,
        meetings: [
          {
            ...batchOf([
              {
                type: 'caption_partial',
                meetingId,
                sequence: events.length + 1,
                timestamp: new Date().toISOString(),
                payload: {},
              },
            ]),
            state: { status: 'live', participantCount: 0, segmentCount: 0, participants: [] },
          },
        ],
      });
      expect(late.fenced).to.deep.equal([meetingId]);
      const beat = await h.bus.request<{ release: string[] }>(protocol.heartbeat.subject, {
        workerId: oldWorker,
        meetingIds: [meetingId],
        active: 1,
        capacity: 10,
      });
      expect(beat.release).to.deep.equal([meetingId]);
      const after = await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 });
      expect(after.events).to.have.length(events.length);

      const again = await h.start({ url });
      expect(again.meetingId).to.not.equal(meetingId);
    } finally {
      await child.kill();
      await h?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('finishes its meetings cleanly when the service stops: leaving, final document, then ended worker_shutdown', async () => {
    const h = await startHarness();
    try {
      const { url, meetingId, bot } = await liveAfterSaying(h, 'Still here.');
      await h.stopSession();
      expect(bot.left).to.equal(true);
      const tail = h.events(meetingId).slice(-3);
      expect(tail[0].payload).to.deep.equal({ status: 'leaving', previousStatus: 'live', reason: 'worker_shutdown' });
      expect(tail[1].type).to.equal('document_saved');
      expect(tail[2].payload).to.deep.equal({ status: 'ended', previousStatus: 'leaving', reason: 'worker_shutdown' });
      await h.restartSession();
      expect((await h.request<{ status: string }>('get', { caller: TOKEN_CALLER, meetingId })).status).to.equal(
        'ended',
      );
      await h.start({ url });
    } finally {
      await h.stop();
    }
  });

  it('drops the events of meetings that ended longer ago than the retention period', async () => {
    const h = await startHarness({ EVENT_LOG_RETENTION_MS: '200' });
    try {
      const live = await h.start();
      const { meetingId } = await h.start();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
      await eventually(
        async () =>
          (await h.request<{ events: EventEnvelope[] }>('events', { meetingId, afterSequence: 0 })).events.length === 0,
        "the ended meeting's events dropped",
        5000,
      );
      // A live meeting's events stay, and the record stays readable.
      expect(
        (await h.request<{ events: EventEnvelope[] }>('events', { meetingId: live.meetingId, afterSequence: 0 }))
          .events,
      ).to.not.be.empty;
      expect((await h.request<{ status: string }>('get', { caller: TOKEN_CALLER, meetingId })).status).to.equal(
        'ended',
      );
    } finally {
      await h.stop();
    }
  });
});
