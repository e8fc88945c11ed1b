/**
 * The task-scheduler service: tasks and their cron timers, executions and their history, and the
 * skill runner (an LLM agent loop). See docs/services/task-scheduler.md.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { announce, answer, listen } from '@notetaker/bus';
import { broadcasts, queueGroup, routes } from '@notetaker/contracts';
import { parseEnv } from '@notetaker/config';
import type { RunningService, ServiceContext, ServiceDefinition } from '@notetaker/service-runtime';
import { SecretBox } from '@notetaker/secrets';
import { startCalendarEngine } from './calendars/engine.js';
import { calendarEnvSchema } from './calendars/env.js';
import { CronTimers } from './cron-timers.js';
import { schedulerEnvSchema } from './env.js';
import { startRecordingRetention } from './recording-retention.js';
import { ExecutionLog } from './execution-log.js';
import { Executor, type DueTick, type TickReport } from './executor.js';
import { SchedulerLease } from './lease.js';
import { createSchedulerMetrics } from './metrics.js';
import { snapshotOf, type ExecutionDoc, type TaskDoc, type TaskSnapshot } from './records.js';
import { SkillRunner } from './runner/skill-runner.js';
import { ScheduleCache } from './schedule.js';
import { SkillCache } from './skills.js';
import { TaskService } from './task-service.js';

export interface TaskSchedulerOptions {
  /**
   * Tests only: accept a leading seconds field (6-field expressions) in requests on the bus, so a
   * test sees cron fire without waiting for a minute. REST never reaches this: the gateway lets
   * exactly 5 fields through.
   */
  allowSecondsField?: boolean;
  /** This instance's identity (else TASKS_INSTANCE_ID, else host-pid-random). */
  instanceId?: string;
}

const STALE_SUMMARY = 'The service restarted while this execution was running';

export function taskSchedulerService(options: TaskSchedulerOptions = {}): ServiceDefinition {
  return {
    name: 'task-scheduler',
    async start(ctx: ServiceContext): Promise<RunningService> {
      const env = parseEnv(schedulerEnvSchema, ctx.config.env);
      const { logger, bus } = ctx;
      const instanceId =
        options.instanceId ??
        env.TASKS_INSTANCE_ID ??
        `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
      const tasks = ctx.store.collection<TaskDoc>('tasks');
      const log = new ExecutionLog(
        ctx.store.collection<ExecutionDoc>('executions'),
        ctx.store.historyLog('execution_history'),
        tasks,
        env.TASKS_HISTORY_LIMIT,
      );
      await log.init();
      const metrics = createSchedulerMetrics(ctx.metrics);
      // Distributed (MongoDB) instances share the store; the embedded store belongs to one process.
      const shared = Boolean(ctx.config.mongodbUrl);

      // Calendars: their verbs on every instance; their syncs and bots on the lease holder's.
      const calendars = await startCalendarEngine({
        bus,
        store: ctx.store,
        box: SecretBox.load({ secretsKey: ctx.config.secretsKey, dataDir: ctx.config.dataDir }),
        env: parseEnv(calendarEnvSchema, ctx.config.env),
        logger,
        registry: ctx.metrics,
        instanceId,
      });

      const lease = new SchedulerLease({
        ...SchedulerLease.collections(ctx.store),
        instanceId,
        host: os.hostname(),
        ttlMs: env.TASKS_LEASE_TTL_MS,
        logger,
        onRound: async (held, gained) => {
          metrics.leader.set(held ? 1 : 0);
          if (gained) await reloadAll();
          await calendars.onLease(held, gained);
          // The holder also retires the runs of instances that died (their heartbeat ran out).
          if (held && shared) await log.markStale(await lease.liveInstances(), STALE_SUMMARY);
        },
      });

      // Whatever was running when the service (re)started will never finish. With the
      // embedded store no other process can be running anything, so that is every running record.
      const liveOthers = shared ? (await lease.liveInstances()).filter((id) => id !== instanceId) : [];
      const staled = await log.markStale(liveOthers, STALE_SUMMARY);
      if (staled > 0) logger.warn({ count: staled }, 'executions left running by a previous run marked stale');

      const skills = new SkillCache(ctx.config.skillsDir);
      const executor = new Executor({
        log,
        tasks,
        instanceId,
        maxConcurrent: env.TASKS_MAX_CONCURRENT,
        logger,
        metrics,
        runner: new SkillRunner({
          bus,
          llm: ctx.config.llm,
          skills,
          contentRoot: ctx.config.contentRoot,
          maxIterations: env.TASKS_MAX_ITERATIONS,
          llmMaxRetries: env.TASKS_LLM_MAX_RETRIES,
        }),
      });

      const schedules = new ScheduleCache({ allowSeconds: options.allowSecondsField === true });
      const snapshots = new Map<string, TaskSnapshot>();

      const report: TickReport = (task, scheduledAt, outcome) => {
        if ('error' in outcome) {
          metrics.ticks.inc({ outcome: 'failed' });
          return logger.error({ err: outcome.error, task: task.name }, 'could not start a scheduled execution');
        }
        if (outcome.started) return metrics.ticks.inc({ outcome: 'started' });
        metrics.ticks.inc({ outcome: outcome.reason === 'running' ? 'skipped_running' : 'skipped_fired_elsewhere' });
        logger.info(
          { task: task.name, tick: new Date(scheduledAt).toISOString() },
          outcome.reason === 'running'
            ? 'tick skipped: the previous execution is still running'
            : 'tick skipped: another instance fired it',
        );
      };

      const timers = new CronTimers(
        (ticks) => {
          const count = ticks.reduce((n, tick) => n + tick.names.length, 0);
          if (!lease.held()) return void metrics.ticks.inc({ outcome: 'not_leader' }, count);
          const due: DueTick[] = ticks.map(({ names, scheduledAt }) => ({
            scheduledAt,
            tasks: names.map((name) => snapshots.get(name)).filter((t): t is TaskSnapshot => t !== undefined),
          }));
          executor.startTicks(due, report);
        },
        (err) => logger.error({ err }, 'cron timer failed'),
      );

      /** Puts the task's timer where its stored state says (every instance keeps all timers). */
      const follow = (name: string, doc: TaskDoc | null) => {
        if (!doc?.cronExpression || !doc.enabled) {
          snapshots.delete(name);
          return timers.set(name, null);
        }
        try {
          const schedule = schedules.get(doc.cronExpression, doc.timezone);
          snapshots.set(name, snapshotOf(doc));
          timers.set(name, schedule);
        } catch (err) {
          logger.warn({ err, task: name }, 'stored schedule no longer parses; task not scheduled');
          snapshots.delete(name);
          timers.set(name, null);
        }
      };

      const reloadAll = async () => {
        const docs = await tasks.find({ cronExpression: { $exists: true }, enabled: true });
        const seen = new Set(docs.map((d) => d.name));
        for (const name of [...snapshots.keys()]) if (!seen.has(name)) follow(name, null);
        for (const doc of docs) follow(doc.name, doc);
      };
      // Timers start from now: ticks missed while the service was down are not replayed.
      await reloadAll();

      const service = new TaskService({
        tasks,
        log,
        executor,
        skills,
        schedules,
        follow,
        announce: (name) => announce(bus, broadcasts.taskChanged, { name, origin: instanceId }),
      });

      const queue = { queue: queueGroup('tasks') };
      const { tasks: verbs } = routes;
      const subscriptions = [
        answer(bus, verbs.create, (req) => service.create(req), queue),
        answer(bus, verbs.list, ({ scheduled, after, limit }) => service.list(scheduled, after, limit), queue),
        answer(bus, verbs.get, ({ name }) => service.get(name), queue),
        answer(bus, verbs.update, ({ name, changes }) => service.update(name, changes), queue),
        answer(bus, verbs.delete, ({ name }) => service.remove(name), queue),
        answer(bus, verbs.enable, ({ name }) => service.setEnabled(name, true), queue),
        answer(bus, verbs.disable, ({ name }) => service.setEnabled(name, false), queue),
        // The history says who ran it: the web, else a key or another service.
        answer(bus, verbs.run, ({ name, caller }) => service.run(name, caller?.kind === 'ui' ? 'ui' : 'api'), queue),
        answer(bus, verbs.history, ({ name, limit, offset }) => service.history(name, limit, offset), queue),
        // Every instance (no queue group): follow changes made through the others.
        listen(bus, broadcasts.taskChanged, async ({ name, origin }) => {
          if (origin === instanceId) return;
          const doc = await tasks.findOne({ _id: name });
          follow(name, doc);
          if (!doc) executor.cancel(name);
        }),
      ];

      await lease.start();
      const retention = startRecordingRetention({
        bus,
        logger,
        days: env.RECORDING_RETENTION_DAYS ?? null,
        sweepMs: env.RECORDING_RETENTION_SWEEP_MS,
        leader: () => lease.held(),
      });
      logger.info({ instanceId, scheduled: timers.size, leader: lease.held() }, 'task scheduler started');

      return {
        ready: () => true,
        async stop() {
          timers.stop();
          retention.stop();
          await Promise.all(subscriptions.map((s) => s.unsubscribe()));
          await executor.stop();
          await calendars.stop();
          await lease.stop();
        },
      };
    },
  };
}
