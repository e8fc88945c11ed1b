/** The actor's state machine: auto-leave rules, stopping, the platform ending the meeting, failures. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { routes } from '@notetaker/contracts';
import type { DriverFactory } from '../src/drivers/driver.js';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import type { Child } from './support/child.js';
import {
  harnessForSuite,
  liveAfterSaying,
  rejection,
  startHarness,
  statuses,
  TOKEN_CALLER,
  type Harness,
} from './support/harness.js';
import { registryOnNats } from './support/registry-on-nats.js';
import { sleep } from '../../../test/support/wait.js';

/** Bots that wait to be admitted (or sent to the lobby) by the test. */
const UNADMITTED = { driver: scriptedDriverFactory({ autoAdmit: false }) };

describe('meeting lifecycle (bus contract)', () => {
  describe('auto-leave', () => {
    const h = harnessForSuite({ ALONE_TIMEOUT_MS: '300', LOBBY_TIMEOUT_MS: '300' }, UNADMITTED);

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
      // Twice the alone timeout: a bot counting while Ada is there would be leaving by now.
      await sleep(600);
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
  });

  describe('the join timeout', () => {
    // A lobby wait far longer than the test: only the join limit can end these meetings.
    const h = harnessForSuite({ JOIN_TIMEOUT_MS: '300', LOBBY_TIMEOUT_MS: '60000' }, UNADMITTED);

    it('gives up a join that never reaches the lobby or the call: error join_failed', async () => {
      const { meetingId } = await h.start();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', 3000);
      expect(statuses(h, meetingId)).to.deep.equal([
        { status: 'joining', previousStatus: null, reason: null },
        { status: 'error', previousStatus: 'joining', reason: 'join_failed' },
      ]);
      const status = await h.request<{ meetings: Array<{ meetingId: string }> }>('status', { caller: TOKEN_CALLER });
      expect(status.meetings.map((m) => m.meetingId)).to.not.include(meetingId);
    });

    it('stops counting once the bot reaches the lobby or is admitted', async () => {
      const waiting = await h.start();
      const admitted = await h.start();
      (await h.driver.meeting(waiting.meetingId)).lobby();
      const bot = await h.driver.meeting(admitted.meetingId);
      bot.participants(['Ada']);
      bot.admit();
      // Past the join limit: a bot still counting would be in error by now.
      await sleep(800);
      expect(statuses(h, waiting.meetingId).map((p) => p.status)).to.deep.equal(['joining', 'lobby']);
      expect(statuses(h, admitted.meetingId).map((p) => p.status)).to.deep.equal(['joining', 'live']);
    });
  });

  describe('the lobby wait', () => {
    const JOIN_MS = 800;
    const LOBBY_MS = 1500;
    /** Less than the join limit, but enough that a wait counted from the start would end early. */
    const SLOW_JOIN_MS = 500;
    const h = harnessForSuite({ JOIN_TIMEOUT_MS: String(JOIN_MS), LOBBY_TIMEOUT_MS: String(LOBBY_MS) }, UNADMITTED);

    it('counts from entering the lobby: a bot that spent time joining still gets the whole wait', async () => {
      const { meetingId } = await h.start();
      const bot = await h.driver.meeting(meetingId);
      await sleep(SLOW_JOIN_MS);
      bot.lobby();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'lobby');
      // Admitted after more than the lobby wait since the start, but well within it since the lobby.
      await sleep(LOBBY_MS - 300);
      bot.participants(['Ada']);
      bot.admit();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'live' || e.payload.status === 'error');
      expect(statuses(h, meetingId)).to.deep.equal([
        { status: 'joining', previousStatus: null, reason: null },
        { status: 'lobby', previousStatus: 'joining', reason: null },
        { status: 'live', previousStatus: 'lobby', reason: null },
      ]);
    });

    it('ends in error lobby_timeout a whole lobby wait after entering the lobby', async () => {
      const { meetingId } = await h.start();
      const bot = await h.driver.meeting(meetingId);
      await sleep(SLOW_JOIN_MS);
      bot.lobby();
      const lobby = await h.waitForEvent(meetingId, (e) => e.payload.status === 'lobby');
      const error = await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', LOBBY_MS + 3000);
      expect(error.payload).to.deep.equal({ status: 'error', previousStatus: 'lobby', reason: 'lobby_timeout' });
      // Event timestamps have millisecond resolution; allow for rounding only.
      expect(Date.parse(error.timestamp) - Date.parse(lobby.timestamp)).to.be.at.least(LOBBY_MS - 5);
    });
  });

  describe('stopping', () => {
    let h: Harness;
    /** The bot stays in `leaving` until the test lets it go (a platform slow to let it out). */
    let letGo: () => void = () => {};
    before(async () => {
      h = await startHarness(
        {},
        {
          driver: scriptedDriverFactory({
            beforeLeave: () => new Promise<void>((resolve) => (letGo = resolve)),
          }),
        },
      );
    });
    after(async () => {
      letGo();
      await h.stop();
    });

    it('answers 409 Meeting has ended to a stop while the bot is leaving, and still lists it in status', async () => {
      const { meetingId } = await h.start();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
      expect(await h.request('stop', { caller: TOKEN_CALLER, meetingId })).to.deep.equal({
        meetingId,
        status: 'stopping',
      });
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'leaving');

      const again = await rejection(h.request('stop', { caller: TOKEN_CALLER, meetingId }));
      expect([again.status, again.message]).to.deep.equal([409, 'Meeting has ended']);
      // Still being transcribed (its last words and the final flush are to come): status shows it.
      const status = await h.request<{ meetings: Array<{ meetingId: string; status: string }> }>('status', {
        caller: TOKEN_CALLER,
      });
      expect(status.meetings.find((m) => m.meetingId === meetingId)).to.deep.include({ status: 'leaving' });

      letGo();
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
      expect(statuses(h, meetingId).map((p) => [p.status, p.reason])).to.deep.equal([
        ['joining', null],
        ['lobby', null],
        ['live', null],
        ['leaving', 'stopped'],
        ['ended', 'stopped'],
      ]);
    });
  });

  describe('a stop that no actor answers (its worker died)', function () {
    this.timeout(60_000);
    // A lease far longer than the test: the stop, not the lease sweep, finds the worker gone.
    const suite = registryOnNats({ leaseMs: 60_000 });
    let worker: Child | undefined;

    before(async () => {
      worker = suite.spawnWorker();
      await worker.waitFor((f) => 'ready' in f);
    });

    it('answers stopping and ends the meeting at once in error worker_lost, keeping the transcript', async () => {
      const harness = suite.h;
      const { meetingId } = await harness.start();
      await harness.waitForEvent(meetingId, (e) => e.payload.status === 'live');
      await worker!.kill();

      expect(await harness.request('stop', { caller: TOKEN_CALLER, meetingId })).to.deep.equal({
        meetingId,
        status: 'stopping',
      });
      await harness.waitForEvent(meetingId, (e) => e.payload.status === 'error', 5000);
      const tail = harness.events(meetingId).slice(-2);
      expect(tail[0].type).to.equal('document_saved');
      expect(tail[1].payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'worker_lost' });
      const status = await harness.request<{ meetings: Array<{ meetingId: string }> }>('status', {
        caller: TOKEN_CALLER,
      });
      expect(status.meetings.map((m) => m.meetingId)).to.not.include(meetingId);
      const record = await harness.request<{ status: string; endedAt: string | null }>('get', {
        caller: TOKEN_CALLER,
        meetingId,
      });
      expect(record.status).to.equal('error');
      expect(record.endedAt).to.be.a('string');
      // A second stop is the one for a meeting that has ended.
      const again = await rejection(harness.request('stop', { caller: TOKEN_CALLER, meetingId }));
      expect([again.status, again.message]).to.deep.equal([409, 'Meeting has ended']);
    });
  });

  describe('maximum duration', () => {
    const h = harnessForSuite({ MAX_MEETING_DURATION_MS: '500' });

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
    const h = harnessForSuite();

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
      const { url, meetingId, bot } = await liveAfterSaying(h, 'Before the crash.');
      bot.fail('browser_crashed', 'target closed');
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'error');
      const tail = h.events(meetingId).slice(-2);
      expect(tail[0]).to.deep.include({ type: 'document_saved' });
      expect(tail[1].payload).to.deep.equal({ status: 'error', previousStatus: 'live', reason: 'browser_crashed' });
      expect(bot.left).to.equal(true);
      const stored = await h.bus.request<{ segments: Array<{ text: string }> }>(routes.transcripts.segments.subject, {
        meetingId,
      });
      expect(stored.segments.map((s) => s.text)).to.deep.equal(['Before the crash.']);
      // Its URL is free again (below).
      const record = await h.request<{ status: string; endedAt: string }>('get', { caller: TOKEN_CALLER, meetingId });
      expect(record.status).to.equal('error');
      expect(record.endedAt).to.be.a('string');
      await h.start({ url });
    });

    for (const reason of ['admission_denied', 'meeting_not_found', 'join_failed'] as const) {
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

    it('uses the browser drivers by default, and reports browser_unavailable when Chromium does not start', async () => {
      // Chromium missing altogether is refused at the start (bot-browser.spec.ts); this one is there but fails.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'broken-chrome-'));
      const chrome = path.join(dir, 'chrome');
      fs.writeFileSync(chrome, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
      const h = await startHarness({ CHROME_PATH: chrome }, { browserDrivers: true });
      try {
        const { meetingId } = await h.start();
        await h.waitForEvent(meetingId, (e) => e.payload.status === 'error', 15_000);
        expect(statuses(h, meetingId).at(-1)).to.deep.include({ status: 'error', reason: 'browser_unavailable' });
      } finally {
        await h.stop();
        fs.rmSync(dir, { recursive: true, force: true });
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
