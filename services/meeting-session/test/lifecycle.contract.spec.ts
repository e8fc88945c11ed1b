/** The actor's state machine: auto-leave rules, the platform ending the meeting, failures. */
import { expect } from 'chai';
import { svc } from '@notetaker/contracts';
import type { DriverFactory } from '../src/drivers/driver.js';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { freshMeetUrl, startHarness, TOKEN_CALLER, type Harness } from './support/harness.js';

const statuses = (h: Harness, id: string) =>
  h
    .events(id)
    .filter((e) => e.type === 'meeting_status')
    .map((e) => e.payload);

describe('meeting lifecycle (bus contract)', () => {
  describe('auto-leave', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(
        { ALONE_TIMEOUT_MS: '300', LOBBY_TIMEOUT_MS: '300' },
        { driver: scriptedDriverFactory({ autoAdmit: false }) },
      );
    });
    after(() => h.stop());

    it('leaves a meeting where the bot has been alone too long', async () => {
      const { meetingId } = await h.start();
      const bot = await h.driver.meeting(meetingId);
      bot.admit();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended', 3000);
      expect(statuses(h, meetingId).slice(-2)).to.deep.equal([
        { status: 'leaving', previousStatus: 'live', reason: 'alone' },
        { status: 'ended', previousStatus: 'leaving', reason: 'alone' },
      ]);
      expect(bot.left).to.equal(true);
    });

    it('stays while someone is there, and starts counting when the last one leaves', async () => {
      const { meetingId } = await h.start();
      const bot = await h.driver.meeting(meetingId);
      bot.participants(['Ada']);
      bot.admit();
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(statuses(h, meetingId).map((p) => p.status)).to.deep.equal(['joining', 'live']);
      bot.participants([]);
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended', 3000);
      expect(statuses(h, meetingId).at(-1)).to.deep.include({ reason: 'alone' });
    });

    it('gives up waiting in the lobby: error lobby_timeout', async () => {
      const { meetingId } = await h.start();
      (await h.driver.meeting(meetingId)).lobby();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', 3000);
      expect(statuses(h, meetingId)).to.deep.equal([
        { status: 'joining', previousStatus: null, reason: null },
        { status: 'lobby', previousStatus: 'joining', reason: null },
        { status: 'error', previousStatus: 'lobby', reason: 'lobby_timeout' },
      ]);
    });

    it('gives up a join that never gets anywhere: error join_failed', async () => {
      const { meetingId } = await h.start();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', 3000);
      expect(statuses(h, meetingId).at(-1)).to.deep.equal({
        status: 'error',
        previousStatus: 'joining',
        reason: 'join_failed',
      });
    });
  });

  describe('maximum duration', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ MAX_MEETING_DURATION_MS: '500' });
    });
    after(() => h.stop());

    it('leaves when the meeting runs past the maximum duration', async () => {
      const { meetingId } = await h.start();
      (await h.driver.meeting(meetingId)).participants(['Ada']);
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended', 3000);
      expect(
        statuses(h, meetingId)
          .slice(-2)
          .map((p) => [p.status, p.reason]),
      ).to.deep.equal([
        ['leaving', 'max_duration'],
        ['ended', 'max_duration'],
      ]);
    });
  });

  describe('the platform and the browser', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness();
    });
    after(() => h.stop());

    for (const reason of ['removed', 'meeting_ended'] as const) {
      it(`ends with reason ${reason} when the platform ends the bot's meeting`, async () => {
        const { meetingId } = await h.start();
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
        const bot = await h.driver.meeting(meetingId);
        bot.end(reason);
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
        expect(
          statuses(h, meetingId)
            .slice(-2)
            .map((p) => [p.status, p.reason]),
        ).to.deep.equal([
          ['leaving', reason],
          ['ended', reason],
        ]);
        expect(bot.left).to.equal(true);
      });
    }

    it('ends in error when the browser crashes, keeping the transcript and releasing the bot', async () => {
      const url = freshMeetUrl();
      const { meetingId } = await h.start({ url });
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
      const bot = await h.driver.meeting(meetingId);
      bot.segment({ speaker: 'Ada', text: 'Before the crash.' });
      await h.waitForEvent(meetingId, (e) => e.type === 'segment_finalized');
      bot.fail('browser_crashed', 'target closed');
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
      const tail = h.events(meetingId).slice(-2);
      expect(tail[0]).to.deep.include({ type: 'document_saved' });
      expect(tail[1].payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'browser_crashed' });
      expect(bot.left).to.equal(true);
      const stored = await h.bus.request<{ segments: Array<{ text: string }> }>(svc('transcripts', 'segments'), {
        meetingId,
      });
      expect(stored.segments.map((s) => s.text)).to.deep.equal(['Before the crash.']);
      // Its URL is free again (below).
      const record = await h.request<{ status: string; endedAt: string }>('get', { caller: TOKEN_CALLER, meetingId });
      expect(record.status).to.equal('error');
      expect(record.endedAt).to.be.a('string');
      await h.start({ url });
    });

    for (const reason of ['admission_denied', 'meeting_not_found', 'auth_required'] as const) {
      it(`reports ${reason} from the platform as the error reason`, async () => {
        const { meetingId } = await h.start();
        (await h.driver.meeting(meetingId)).fail(reason);
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
        expect(statuses(h, meetingId).at(-1)).to.deep.include({ status: 'error', reason });
      });
    }
  });

  describe('no browser', () => {
    it('ends in error browser_unavailable when the bot cannot be launched', async () => {
      const h = await startHarness({}, { driver: scriptedDriverFactory({ failOnStart: 'browser_unavailable' }) });
      try {
        const { meetingId } = await h.start();
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
        expect(statuses(h, meetingId).at(-1)).to.deep.equal({
          status: 'error',
          previousStatus: 'joining',
          reason: 'browser_unavailable',
        });
        const status = await h.request<{ meetings: unknown[] }>('status', { caller: TOKEN_CALLER });
        expect(status.meetings).to.deep.equal([]);
      } finally {
        await h.stop();
      }
    });

    it('uses the browser drivers by default, and reports browser_unavailable when Chromium is missing', async () => {
      const h = await startHarness({ CHROME_PATH: '/nonexistent/chrome' }, { browserDrivers: true });
      try {
        const { meetingId } = await h.start();
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', 15_000);
        expect(statuses(h, meetingId).at(-1)).to.deep.include({ status: 'error', reason: 'browser_unavailable' });
      } finally {
        await h.stop();
      }
    });

    it('takes the reason a driver throws at start, and join_failed otherwise', async () => {
      const throwing = (error: Error): DriverFactory => ({
        create: () => ({
          start: async () => {
            throw error;
          },
          leave: async () => {},
        }),
        close: async () => {},
      });
      const withReason = Object.assign(new Error('no chrome'), { reason: 'browser_unavailable' });
      for (const [error, reason] of [
        [withReason, 'browser_unavailable'],
        [new Error('navigation failed'), 'join_failed'],
      ] as const) {
        const h = await startHarness(
          {},
          {
            driver: Object.assign(throwing(error), {
              started: [],
              meeting: async () => {
                throw new Error('unused');
              },
            }),
          },
        );
        try {
          const { meetingId } = await h.start();
          await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
          expect(statuses(h, meetingId).at(-1)).to.deep.include({ reason });
        } finally {
          await h.stop();
        }
      }
    });
  });
});
