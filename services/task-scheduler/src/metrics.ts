/** The scheduler's Prometheus metrics (on /metrics of the process that runs it). */
import client from 'prom-client';

export type SchedulerMetrics = ReturnType<typeof createSchedulerMetrics>;

const LATENESS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createSchedulerMetrics(registry: client.Registry) {
  const registers = [registry];
  return {
    tickLateness: new client.Histogram({
      name: 'tasks_tick_lateness_seconds',
      help: 'From a cron tick to its execution starting (startedAt)',
      buckets: LATENESS_BUCKETS,
      registers,
    }),
    tickRecordedLateness: new client.Histogram({
      name: 'tasks_tick_recorded_lateness_seconds',
      help: 'From a cron tick to its running execution being stored',
      buckets: LATENESS_BUCKETS,
      registers,
    }),
    ticks: new client.Counter({
      name: 'tasks_ticks_total',
      help: 'Cron ticks per task by outcome: started, skipped_running, skipped_fired_elsewhere, not_leader, failed',
      labelNames: ['outcome'],
      registers,
    }),
    executions: new client.Counter({
      name: 'tasks_executions_total',
      help: 'Finished executions by status',
      labelNames: ['status'],
      registers,
    }),
    running: new client.Gauge({ name: 'tasks_running', help: 'Executions running in this process', registers }),
    waiting: new client.Gauge({
      name: 'tasks_waiting',
      help: 'Executions recorded as running that wait for a free slot (TASKS_MAX_CONCURRENT)',
      registers,
    }),
    leader: new client.Gauge({
      name: 'tasks_scheduler_leader',
      help: '1 while this instance holds the scheduler lease and fires cron ticks',
      registers,
    }),
  };
}
