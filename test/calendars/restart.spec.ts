/**
 * The schedule survives the scheduler: a calendar's bots go after a restart of the stack, and a
 * bot whose time passed while the stack was down goes as soon as it is back, the meeting being on.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { startCallbackReceiver } from '../support/callback-receiver.js';
import { icsCalendar, icsMeeting, startIcsFeedServer } from '../support/calendar-providers/ics-feed.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { eventually, sleep } from '../support/wait.js';
import { meetLink, soon, SYNC_MS } from './support.js';

describe('calendars: a restart', function () {
  this.timeout(90_000);

  it('keeps the schedule, and starts a bot missed while down late while its meeting is still on', async () => {
    const ics = await startIcsFeedServer();
    const rx = await startCallbackReceiver();
    const env = { CALENDAR_SYNC_INTERVAL_MS: String(SYNC_MS), CALENDAR_JOIN_LEAD_MS: '0' };
    const first = await startTestStack(env, { driverFactory: scriptedDriverFactory() });
    let second: TestStack | null = null;
    try {
      const { apiKey } = await first.createToken();
      const missed = meetLink();
      const later = meetLink();
      const missedAt = soon(5000);
      const laterAt = missedAt + 8000;
      const url = ics.feed(icsCalendar([icsMeeting('missed', missedAt, missed), icsMeeting('later', laterAt, later)]));
      const connected = await first.api('/calendars', {
        method: 'POST',
        apiKey,
        json: { provider: 'ics', url, callbackUrl: rx.url, saveTranscript: false },
      });
      const { calendar } = await connected.json();
      await eventually(async () => {
        const answer = await first.api(`/calendars/${calendar.id}/events`, { apiKey });
        return (await answer.json()).events.length === 2;
      }, 'the events read');
      await first.stack.stop();
      // Down past the first meeting's start; the feed is gone too, so only the stored schedule can tell.
      await ics.server.pause();
      await sleep(Math.max(0, missedAt + 1000 - Date.now()));

      const drivers = scriptedDriverFactory();
      second = await startTestStack({ ...env, DATA_DIR: first.dataDir }, { driverFactory: drivers });
      const lateStart = await eventually(
        () => drivers.started.find((m) => m.target.url.startsWith(missed)),
        'the missed bot',
        20_000,
      );
      expect(lateStart.target.url.startsWith(missed)).to.equal(true);
      // The later meeting's bot waits for its own time.
      expect(Date.now()).to.be.below(laterAt);
      expect(drivers.started.some((m) => m.target.url.startsWith(later))).to.equal(false);
      const onTime = await eventually(
        () => drivers.started.find((m) => m.target.url.startsWith(later)),
        'the later bot',
        30_000,
      );
      expect(onTime.target.url.startsWith(later)).to.equal(true);
      const events = (await (await second.api(`/calendars/${calendar.id}/events`, { apiKey })).json()).events;
      expect(events.map((e: any) => e.reason)).to.deep.equal(['started', 'started']);
      expect((await (await second.api(`/calendars/${calendar.id}`, { apiKey })).json()).calendar.status).to.equal(
        'error',
      );
    } finally {
      await second?.stop();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
      await Promise.all([ics.close(), rx.close()]);
    }
  });
});
