/**
 * Prometheus metrics in the service's registry (ctx.metrics, served on /metrics): events by final
 * outcome, attempts by result, attempt latency and the time from receipt to delivery; the lanes
 * open (in memory) and how often an event after a meeting's end reopened one.
 */
import client from 'prom-client';
import type { AttemptKind } from './delivery/sender.js';
import type { DeliveryState } from './store/delivery-store.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class EmitterMetrics {
  private readonly deliveries: client.Counter<'outcome'>;
  private readonly attempts: client.Counter<'result'>;
  private readonly attemptSeconds: client.Histogram<'result'>;
  private readonly deliverySeconds: client.Histogram;
  private readonly reopenedLanes: client.Counter;

  // Each labelled series is looked up once: prom-client hashes the labels on every lookup, and
  // there are a few per delivery at thousands of deliveries per second.
  private readonly attemptCounts = new Map<AttemptKind, client.Counter.Internal>();
  private readonly attemptDurations = new Map<AttemptKind, client.Histogram.Internal<'result'>>();
  private readonly settledCounts = new Map<DeliveryState, client.Counter.Internal>();

  constructor(registry: client.Registry, pendingCount: () => number, openLanes: () => number) {
    const registers = [registry];
    this.deliveries = new client.Counter({
      name: 'webhook_deliveries_total',
      help: 'Events settled, by outcome (delivered, dead_lettered, dropped, gone, missed)',
      labelNames: ['outcome'],
      registers,
    });
    this.attempts = new client.Counter({
      name: 'webhook_attempts_total',
      help: 'HTTP delivery attempts, by result',
      labelNames: ['result'],
      registers,
    });
    this.attemptSeconds = new client.Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt, by result',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.deliverySeconds = new client.Histogram({
      name: 'webhook_delivery_latency_seconds',
      help: 'From the event reaching the emitter to its successful delivery (retries included)',
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new client.Gauge({
      name: 'webhook_pending_events',
      help: 'Events stored and not yet settled',
      registers,
      collect() {
        this.set(pendingCount());
      },
    });
    new client.Gauge({
      name: 'webhook_open_lanes',
      help: 'Meetings whose lane is open (in memory): live, or with events after their final status to send',
      registers,
      collect() {
        this.set(openLanes());
      },
    });
    this.reopenedLanes = new client.Counter({
      name: 'webhook_lanes_reopened_total',
      help: "Closed lanes reopened by an event after the meeting's final status (a recording stored late)",
      registers,
    });
  }

  reopened(): void {
    this.reopenedLanes.inc();
  }

  attempt(result: AttemptKind, durationMs: number): void {
    series(this.attemptCounts, result, () => this.attempts.labels({ result })).inc();
    series(this.attemptDurations, result, () => this.attemptSeconds.labels({ result })).observe(durationMs / 1000);
  }

  settled(outcome: DeliveryState, receivedAtMs: number | null): void {
    series(this.settledCounts, outcome, () => this.deliveries.labels({ outcome })).inc();
    if (outcome === 'delivered' && receivedAtMs !== null)
      this.deliverySeconds.observe((Date.now() - receivedAtMs) / 1000);
  }
}

function series<K, V>(cache: Map<K, V>, key: K, make: () => V): V {
  let found = cache.get(key);
  if (found === undefined) cache.set(key, (found = make()));
  return found;
}
