/** transcript-store's Prometheus metrics (on /metrics of the process that runs it): its recordings' work. */
import client from 'prom-client';
import type { BusyReason, ChainLoad } from './recordings/chains.js';
import type { ForwardOutcome } from './recordings/forwarding.js';
import type { SweepResult } from './recordings/sweep.js';

export interface RecordingGauges {
  /** What the meetings' chains hold here: requests this replica writes (`chain`), and those waiting for another replica (`forward`). */
  load(): Record<'chain' | 'forward', ChainLoad>;
  /** Recordings whose writer lease this replica holds. */
  leases(): number;
}

export function createRecordingMetrics(registry: client.Registry, gauges: RecordingGauges) {
  const registers = [registry];
  const gauge = (name: string, help: string, pick: (load: ChainLoad) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['where'],
      registers,
      collect() {
        for (const [where, load] of Object.entries(gauges.load())) this.set({ where }, pick(load));
      },
    });
  gauge(
    'transcript_store_recording_chain_meetings',
    'Meetings with recording requests waiting or running here, by where (chain: written here; forward: waiting for the replica that writes them)',
    (load) => load.meetings,
  );
  gauge(
    'transcript_store_recording_chain_requests',
    'Recording requests waiting or running here, by where',
    (load) => load.requests,
  );
  gauge('transcript_store_recording_chain_bytes', 'Audio bytes those requests hold, by where', (load) => load.bytes);
  new client.Gauge({
    name: 'transcript_store_recording_writer_leases',
    help: 'Recordings this replica writes (holds the writer lease of)',
    registers,
    collect() {
      this.set(gauges.leases());
    },
  });
  const busy = new client.Counter({
    name: 'transcript_store_recording_busy_total',
    help: 'Recording requests refused at once with recording_busy (the worker keeps the batch and sends it again), by where and the bound reached',
    labelNames: ['where', 'reason'],
    registers,
  });
  const forwarded = new client.Counter({
    name: 'transcript_store_recording_forwarded_total',
    help: 'Recording requests handed to the replica that writes the recording, by verb and outcome (answered; refused by it; unanswered: it is gone or slow)',
    labelNames: ['verb', 'outcome'],
    registers,
  });
  const swept = new client.Counter({
    name: 'transcript_store_recording_swept_total',
    help: 'Recordings the sweep completed, by kind (finish_retried: storage had refused the finish; abandoned: no append nor finish came; legacy)',
    labelNames: ['kind'],
    registers,
  });
  const left = new client.Gauge({
    name: 'transcript_store_recording_sweep_left',
    help: 'Recordings the last sweep could not complete (storage still refuses): they stay recording',
    registers,
  });
  return {
    onBusy: (where: 'chain' | 'forward') => (reason: BusyReason) => busy.inc({ where, reason }),
    onForwarded: (verb: string, outcome: ForwardOutcome) => forwarded.inc({ verb, outcome }),
    onSwept(result: SweepResult) {
      for (const [kind, count] of Object.entries(result.completed)) if (count > 0) swept.inc({ kind }, count);
      left.set(result.left);
    },
  };
}
