/**
 * Several scheduler instances on one store (as replicas on one MongoDB are) start each calendar
 * bot once: the lease holder schedules, each start is claimed in the store first, and when the
 * holder stops the next one takes the schedule over without starting anything twice.
 * Real services on one in-process bus: two task-scheduler instances, meeting-session (the
 * scripted platform) and transcript-store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MemoryBroker, MemoryBus } from '@notetaker/bus';
import { loadBaseConfig } from '@notetaker/config';
import { routes } from '@notetaker/contracts';
import { meetingSessionService } from '@notetaker/meeting-session';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService } from '@notetaker/service-runtime';
import { openStore, type Store } from '@notetaker/store';
import { taskSchedulerService } from '@notetaker/task-scheduler';
import { transcriptStoreService } from '@notetaker/transcript-store';
import { icsCalendar, icsMeeting, startIcsFeedServer } from '../support/calendar-providers/ics-feed.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { eventually, sleep } from '../support/wait.js';
import { meetLink, soon } from './support.js';

describe('calendars: several scheduler instances', function () {
  this.timeout(90_000);

  it('start each bot once, across a handover of the lease', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-instances-'));
    const config = loadBaseConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      SKILLS_DIR: path.resolve('skills'),
      CALENDAR_SYNC_INTERVAL_MS: '500',
      CALENDAR_JOIN_LEAD_MS: '0',
      TASKS_LEASE_TTL_MS: '1000',
      BOT_INSTALL_BROWSER: 'false',
    });
    const bus = new MemoryBus({ broker: new MemoryBroker() });
    const drivers = scriptedDriverFactory();
    const stores: Store[] = [];
    const running: RunningService[] = [];
    const start = async (definition: ReturnType<typeof taskSchedulerService>, store?: Store) => {
      const own = store ?? (await openStore({ service: definition.name, dataDir }));
      if (!store) stores.push(own);
      const service = await definition.start({
        bus,
        store: own,
        config,
        logger: silentLogger(),
        metrics: createMetricsRegistry(definition.name),
      });
      running.push(service);
      return service;
    };
    const ics = await startIcsFeedServer();
    try {
      await start(transcriptStoreService());
      await start(meetingSessionService({ driverFactory: drivers }));
      const schedulerStore = await openStore({ service: 'task-scheduler', dataDir });
      stores.push(schedulerStore);
      const holder = await start(taskSchedulerService({ instanceId: 'one' }), schedulerStore);
      await start(taskSchedulerService({ instanceId: 'two' }), schedulerStore);

      const first = soon(3000);
      const links = Array.from({ length: 10 }, () => meetLink());
      // Two waves: five meetings before the handover, five after.
      const feed = icsCalendar(links.map((link, i) => icsMeeting(`m${i}`, first + (i < 5 ? 0 : 6000), link)));
      const caller = { kind: 'ui' as const, accountId: 'operator' };
      // Both instances answer the verbs; which one does is the queue group's choice.
      const { calendar } = await bus.request<any>(routes.calendars.connect.subject, {
        provider: 'ics',
        url: ics.feed(feed),
        callbackUrl: null,
        saveTranscript: false,
        caller,
      });
      await eventually(
        async () => {
          const answer = await bus.request<any>(routes.calendars.events.subject, { calendarId: calendar.id, caller });
          return answer.events.length === 10;
        },
        'the events read',
        20_000,
      );
      const started = (link: string) => drivers.started.filter((m) => m.target.url.startsWith(link)).length;
      await eventually(() => links.slice(0, 5).every((link) => started(link) === 1), 'the first wave', 20_000);
      await holder.stop();
      running.splice(running.indexOf(holder), 1);
      await eventually(
        () => links.every((link) => started(link) >= 1),
        'the second wave, from the other instance',
        30_000,
      );
      await sleep(1500);
      expect(links.map(started)).to.deep.equal(links.map(() => 1));
      expect(drivers.started).to.have.length(10);
    } finally {
      for (const service of running.reverse()) await service.stop();
      for (const store of stores) await store.close();
      await bus.close();
      await ics.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
