/**
 * A process hosting many simulated workers (simulated-worker.ts), each on a NATS connection of
 * its own as each worker pod has: the placement bench forks a few of these for its fleet, and one
 * with a single worker to SIGKILL. Settings from the environment (NATS_URL, SIM_WORKERS,
 * SIM_CAPACITY, SIM_HEARTBEAT_MS, SIM_JOIN_MS); driven over IPC (HostRequest, HostReply).
 * A closed IPC channel closes every connection and exits.
 */
import { connectNatsBus, type Bus } from '@notetaker/bus';
import { SimulatedWorker, type Departure } from './simulated-worker.js';

export type HostRequest = { op: 'report' } | { op: 'drain'; workerIds: string[]; graceMs: number };

export interface WorkerReport {
  workerId: string;
  meetingIds: string[];
  departures: Record<Departure, number>;
  refused: number;
}

export type HostReply =
  | { op: 'ready'; workerIds: string[] }
  | { op: 'report'; workers: WorkerReport[] }
  | { op: 'drained'; workerId: string; ms: number };

const env = (name: string) => {
  const value = Number(process.env[name]);
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number`);
  return value;
};
const natsUrl = process.env.NATS_URL!;
const count = env('SIM_WORKERS');
const heartbeatMs = env('SIM_HEARTBEAT_MS');
const send = (reply: HostReply) => process.send!(reply);

const workers = new Map<string, { worker: SimulatedWorker; bus: Bus }>();
// A few connections at a time: a thousand at once is a reconnect storm, not a fleet coming up.
for (let i = 0; i < count; i += 25) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(25, count - i) }, async () => {
      const bus = await connectNatsBus({ servers: natsUrl, name: 'sim-worker' });
      const worker = new SimulatedWorker({
        bus,
        capacity: env('SIM_CAPACITY'),
        heartbeatMs,
        joinMs: env('SIM_JOIN_MS'),
        firstBeatDelayMs: Math.random() * heartbeatMs,
      });
      await worker.start();
      return { worker, bus };
    }),
  );
  for (const entry of batch) workers.set(entry.worker.workerId, entry);
}
send({ op: 'ready', workerIds: [...workers.keys()] });

process.on('message', (request: HostRequest) => {
  if (request.op === 'report') {
    send({
      op: 'report',
      workers: [...workers.values()].map(({ worker }) => ({
        workerId: worker.workerId,
        meetingIds: worker.meetingIds(),
        departures: { ...worker.departures },
        refused: worker.refused,
      })),
    });
  } else if (request.op === 'drain') {
    for (const workerId of request.workerIds) {
      const entry = workers.get(workerId);
      if (!entry) continue;
      const t0 = performance.now();
      void entry.worker
        .drain(request.graceMs)
        .then(() => send({ op: 'drained', workerId, ms: performance.now() - t0 }));
    }
  }
});
process.on('disconnect', () => {
  void Promise.allSettled(
    [...workers.values()].map(({ worker, bus }) => {
      worker.stopTimer();
      return bus.close();
    }),
  ).finally(() => process.exit(0));
});
