/**
 * The processes of the placement bench: services in processes of their own (service-process.ts)
 * and the simulated workers, a few hosts of many (worker-host-process.ts), driven over IPC.
 * BENCH_CPU_PROF=<dir> runs the service processes under `node --cpu-prof` (written as they stop)
 * and BENCH_HEAP_SIGNAL lets a heap snapshot be taken with SIGUSR2 (`--heapsnapshot-signal`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { HostReply, HostRequest, WorkerReport } from './worker-host-process.js';
import type { GatewayReady, LoopDelay } from './service-process.js';

const here = import.meta.dirname;

function profilingArgs(): string[] {
  const args: string[] = [];
  if (process.env.BENCH_CPU_PROF) args.push('--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`);
  if (process.env.BENCH_HEAP_SIGNAL) args.push('--heapsnapshot-signal=SIGUSR2');
  return args;
}

export interface ServiceProcess {
  readonly pid: number;
  /** The gateway's port and a token's key, when the gateway is among the services. */
  readonly gateway: GatewayReady | null;
  /** How late its event loop ran since the last call (or its start). */
  loopDelay(): Promise<LoopDelay>;
  stop(): Promise<void>;
}

/** Forks service-process.ts with `services` and resolves once it prints "ready". */
export async function startServiceProcess(services: string[], env: Record<string, string>): Promise<ServiceProcess> {
  const child = fork(path.join(here, 'service-process.ts'), services, {
    execArgv: ['--import', 'tsx', ...profilingArgs()],
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let gateway: GatewayReady | null = null;
  const delays: Array<(delay: LoopDelay) => void> = [];
  child.on('message', (message: GatewayReady | LoopDelay) => {
    if ('apiKey' in message) gateway = message;
    else delays.shift()?.(message);
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    void exited.then(() => reject(new Error(`${services.join('+')} exited before it was ready`)));
  });
  if (services.includes('gateway') && !gateway) throw new Error('the gateway process sent no port');
  return {
    pid: child.pid!,
    gateway,
    loopDelay() {
      const answer = new Promise<LoopDelay>((resolve) => delays.push(resolve));
      child.send('loop-delay');
      return answer;
    },
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One process hosting `count` simulated workers. */
export class WorkerHost {
  workerIds: string[] = [];
  private readonly waiting = new Map<string, Array<(reply: HostReply) => void>>();
  private readonly onDrained = new Map<string, (ms: number) => void>();
  private readonly exited: Promise<unknown>;

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once('exit', resolve));
    child.on('message', (reply: HostReply) => {
      if (reply.op === 'drained') this.onDrained.get(reply.workerId)?.(reply.ms);
      else this.waiting.get(reply.op)?.shift()?.(reply);
    });
  }

  static async start(
    natsUrl: string,
    settings: { count: number; capacity: number; heartbeatMs: number; joinMs: number },
  ): Promise<WorkerHost> {
    const child = fork(path.join(here, 'worker-host-process.ts'), [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        NATS_URL: natsUrl,
        SIM_WORKERS: String(settings.count),
        SIM_CAPACITY: String(settings.capacity),
        SIM_HEARTBEAT_MS: String(settings.heartbeatMs),
        SIM_JOIN_MS: String(settings.joinMs),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const host = new WorkerHost(child);
    const ready = host.next('ready');
    const failed = host.exited.then(() => {
      throw new Error('a worker host exited before it was ready');
    });
    const reply = (await Promise.race([ready, failed])) as Extract<HostReply, { op: 'ready' }>;
    host.workerIds = reply.workerIds;
    return host;
  }

  get pid(): number {
    return this.child.pid!;
  }

  async report(): Promise<WorkerReport[]> {
    const reply = this.next('report');
    this.send({ op: 'report' });
    return ((await reply) as Extract<HostReply, { op: 'report' }>).workers;
  }

  /** Drains these workers (SIGTERM with a grace); resolves with each one's time to leave, in ms. */
  drain(workerIds: string[], graceMs: number): Promise<number[]> {
    const left = workerIds.map((id) => new Promise<number>((resolve) => this.onDrained.set(id, resolve)));
    this.send({ op: 'drain', workerIds, graceMs });
    return Promise.all(left);
  }

  /** SIGKILL: a worker lost without a word, its connections cut by the kernel. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Closes the channel: the host closes its connections and exits. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.disconnect();
    await this.exited;
  }

  private send(request: HostRequest): void {
    this.child.send(request);
  }

  private next(op: HostReply['op']): Promise<HostReply> {
    return new Promise((resolve) => {
      const queue = this.waiting.get(op) ?? [];
      queue.push(resolve);
      this.waiting.set(op, queue);
    });
  }
}

/** The nats-server listening on `port` (the handle does not say its pid). */
export function natsPids(port: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0].endsWith('nats-server') && argv.includes(String(port));
      } catch {
        return false;
      }
    })
    .map(Number);
}
