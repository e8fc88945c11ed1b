/**
 * The calendars in one scheduler instance: the verbs (api.ts) on every instance, and on the one
 * holding the scheduler lease the sync rounds (each calendar every CALENDAR_SYNC_INTERVAL_MS, a
 * new one at once, a failing one after its backoff) and the bots' schedule. Losing the lease stops
 * both; gaining it reloads them from the store, so a restart or a handover keeps the schedule.
 */
import { announce, answer, listen, type Bus, type Subscription } from '@notetaker/bus';
import { broadcasts, queueGroup, routes } from '@notetaker/contracts';
import { AddressPolicy, createGuardedAgents, type GuardedAgents } from '@notetaker/net';
import type { Logger } from '@notetaker/observability';
import type { SecretBox } from '@notetaker/secrets';
import type { Store } from '@notetaker/store';
import type client from 'prom-client';
import * as api from './api.js';
import { BotSchedule } from './bot-schedule.js';
import { startBot, type StarterDeps } from './bot-starter.js';
import type { CalendarEnv } from './env.js';
import { createCalendarMetrics } from './metrics.js';
import { createSources } from './providers/sources.js';
import type { CalendarDoc, Credentials } from './records.js';
import { CalendarStore } from './store.js';
import { syncCalendar, type SyncDeps } from './sync.js';

export interface CalendarEngineOptions {
  bus: Bus;
  store: Store;
  box: SecretBox;
  env: CalendarEnv;
  logger: Logger;
  registry: client.Registry;
  instanceId: string;
}

export interface CalendarEngine {
  /** The scheduler lease's round: `held` now, `gained` just now. */
  onLease(held: boolean, gained: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** How often the lease holder looks for calendars due a sync. */
const ROUND_MS = 250;

export async function startCalendarEngine(options: CalendarEngineOptions): Promise<CalendarEngine> {
  const { bus, env, logger, instanceId } = options;
  const store = new CalendarStore(options.store);
  await store.init();
  const metrics = createCalendarMetrics(options.registry);
  const policy = new AddressPolicy({
    allowPrivate: env.CALLBACK_ALLOW_PRIVATE,
    allowedHosts: env.CALLBACK_ALLOWED_HOSTS,
  });
  const agents: GuardedAgents = createGuardedAgents({ policy, maxSocketsPerReceiver: 4 });
  // A rotated refresh token replaces the sealed one, so the next instance to sync has it.
  const rotated = async (calendarId: string, refreshToken: string) => {
    const doc = await store.calendars.findOne({ _id: calendarId });
    if (!doc) return;
    const credentials = { ...(JSON.parse(options.box.open(doc.credentials)) as Credentials), refreshToken };
    await store.calendars.updateOne(
      { _id: calendarId },
      { $set: { credentials: options.box.seal(JSON.stringify(credentials)) } },
    );
  };
  const sources = createSources(env, agents, rotated);
  const syncDeps: SyncDeps = {
    store,
    sources,
    box: options.box,
    intervalMs: env.CALENDAR_SYNC_INTERVAL_MS,
    logger,
    metrics,
  };

  let leader = false;
  /** When each calendar is next due a sync (the lease holder's view). */
  const nextSync = new Map<string, number>();
  const syncing = new Map<string, Promise<void>>();

  const starter: StarterDeps = {
    bus,
    store,
    instanceId,
    leadMs: env.CALENDAR_JOIN_LEAD_MS,
    logger,
    metrics,
    retry: (key, at) => schedule.arm(key, at),
  };
  const schedule = new BotSchedule({
    store,
    leadMs: env.CALENDAR_JOIN_LEAD_MS,
    logger,
    start: (key) => startBot(starter, key),
  });

  const dueAfterSync = (doc: CalendarDoc | null): number | null => {
    if (!doc || doc.status === 'disconnected') return null;
    if (doc.retryAt !== null) return doc.retryAt;
    return doc.lastSyncAt ? Date.parse(doc.lastSyncAt) + env.CALENDAR_SYNC_INTERVAL_MS : Date.now();
  };

  const follow = async (calendarId: string) => {
    if (!leader) return;
    const doc = await store.calendars.findOne({ _id: calendarId });
    const at = dueAfterSync(doc);
    if (at === null) nextSync.delete(calendarId);
    else nextSync.set(calendarId, at);
    if (!doc) for (const source of Object.values(sources)) source.forget(calendarId);
    await schedule.reloadCalendar(calendarId, doc);
  };

  const runSync = (calendarId: string) => {
    nextSync.delete(calendarId);
    const run = (async () => {
      const changed = await syncCalendar(syncDeps, calendarId);
      if (!leader) return;
      const doc = await store.calendars.findOne({ _id: calendarId });
      const at = dueAfterSync(doc);
      if (at !== null) nextSync.set(calendarId, at);
      if (changed) await schedule.reloadCalendar(calendarId, doc);
    })()
      .catch((err: unknown) => logger.error({ err, calendarId }, 'calendar sync round failed'))
      .finally(() => syncing.delete(calendarId));
    syncing.set(calendarId, run);
  };

  const round = () => {
    if (!leader) return;
    const now = Date.now();
    for (const [calendarId, at] of nextSync) {
      if (syncing.size >= env.CALENDAR_SYNC_CONCURRENCY) break;
      if (at <= now && !syncing.has(calendarId)) runSync(calendarId);
    }
  };
  const timer = setInterval(round, Math.min(ROUND_MS, env.CALENDAR_SYNC_INTERVAL_MS));
  timer.unref?.();

  const changed = (calendarId: string) => {
    void follow(calendarId).catch((err: unknown) => logger.error({ err, calendarId }, 'calendar change not followed'));
    announce(bus, broadcasts.calendarChanged, { calendarId, origin: instanceId });
  };
  const deps: api.ApiDeps = { store, box: options.box, policy, changed };

  const queue = { queue: queueGroup('calendars') };
  const verbs = routes.calendars;
  const subscriptions: Subscription[] = [
    answer(bus, verbs.connect, (input) => api.connect(deps, input), queue),
    answer(bus, verbs.list, ({ caller }) => api.list(deps, caller), queue),
    answer(bus, verbs.get, ({ caller, calendarId }) => api.get(deps, caller, calendarId), queue),
    answer(bus, verbs.delete, ({ caller, calendarId }) => api.remove(deps, caller, calendarId), queue),
    answer(bus, verbs.events, ({ caller, calendarId }) => api.events(deps, caller, calendarId), queue),
    answer(
      bus,
      verbs['event-join'],
      ({ caller, calendarId, eventId, join }) => api.setJoin(deps, caller, calendarId, eventId, join),
      queue,
    ),
    listen(bus, broadcasts.calendarChanged, async ({ calendarId, origin }) => {
      if (origin !== instanceId) await follow(calendarId);
    }),
    // A revoked key's calendars go with it: nobody may start bots as that key any more.
    listen(bus, broadcasts.grantEnded, async (grant) => {
      if (grant.kind !== 'token') return;
      const owned = await store.calendars.find({ ownerId: `token:${grant.tokenId}` }, { projection: { _id: 1 } });
      for (const { _id } of owned) {
        await store.events.deleteMany({ calendarId: _id });
        await store.calendars.deleteOne({ _id });
        await follow(_id);
      }
    }),
  ];

  return {
    async onLease(held, gained) {
      if (!held && leader) {
        leader = false;
        nextSync.clear();
        schedule.deactivate();
        return;
      }
      if (!gained) return;
      leader = true;
      // A start claimed by an instance that died before it answered is tried again.
      await store.events.updateMany(
        { bot: 'starting', claimedAt: { $lt: Date.now() - 60_000 } },
        { $set: { bot: 'waiting', claimedBy: null, claimedAt: null } },
      );
      for (const doc of await store.calendars.find({})) {
        const at = dueAfterSync(doc);
        if (at !== null) nextSync.set(doc._id, at);
      }
      await schedule.activate();
    },
    async stop() {
      clearInterval(timer);
      leader = false;
      await Promise.all(subscriptions.map((s) => s.unsubscribe()));
      await Promise.all(syncing.values());
      await schedule.stop();
      agents.destroy();
    },
  };
}
