/** The calendars' Prometheus metrics (on /metrics of the process that runs the scheduler). */
import client from 'prom-client';

export type CalendarMetrics = ReturnType<typeof createCalendarMetrics>;

export function createCalendarMetrics(registry: client.Registry) {
  const registers = [registry];
  return {
    syncs: new client.Counter({
      name: 'calendar_syncs_total',
      help: 'Calendar syncs by provider and outcome: full, changes, unchanged, error, disconnected',
      labelNames: ['provider', 'outcome'],
      registers,
    }),
    syncSeconds: new client.Histogram({
      name: 'calendar_sync_seconds',
      help: 'How long one calendar sync took',
      labelNames: ['provider'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    disconnected: new client.Counter({
      name: 'calendar_disconnected_total',
      help: 'Calendars whose refresh token the provider refused (invalid_grant): the owner must connect again',
      labelNames: ['provider'],
      registers,
    }),
    bots: new client.Counter({
      name: 'calendar_bots_total',
      help: 'Bot starts for calendar meetings by outcome: started, already_transcribed, retried, failed',
      labelNames: ['outcome'],
      registers,
    }),
    lateness: new client.Histogram({
      name: 'calendar_bot_start_lateness_seconds',
      help: "From an event's start minus CALENDAR_JOIN_LEAD_MS to its bot's start being asked for",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
  };
}
