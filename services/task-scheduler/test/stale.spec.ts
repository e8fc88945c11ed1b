/**
 * `stale` after a restart (docs/api/reference.md#tasks), the hard way: the service runs as its
 * own process (services/task-scheduler/src/main.ts, real NATS, embedded store on disk), is SIGKILLed in the middle of a run, and started again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { connectNatsBus, type Bus } from '@notetaker/bus';
import { routes, type Task, type TaskExecution } from '@notetaker/contracts';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { natsServerForSuite } from '../../meeting-session/test/support/nats-suite.js';
import { eventually } from './harness.js';

describe('stale executions after the process is killed', function () {
  this.timeout(90_000);
  const nats = natsServerForSuite();
  let llm: FakeLlm;
  let bus: Bus;
  let dataDir: string;
  let child: ChildProcess | null = null;

  const request = <T>(verb: keyof typeof routes.tasks, data: unknown) =>
    bus.request<T>(routes.tasks[verb].subject, data, { timeoutMs: 5000 });

  function startService(): ChildProcess {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'services/task-scheduler/src/main.ts'], {
      env: {
        ...process.env,
        ...llm.env(),
        NATS_URL: nats.url,
        DATA_DIR: dataDir,
        MONGODB_URL: '',
        PORT: '0',
        SKILLS_DIR: path.resolve('skills'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return proc;
  }

  async function untilAnswering(): Promise<void> {
    await eventually(
      () =>
        request('list', {}).then(
          () => true,
          () => false,
        ),
      30_000,
    );
  }

  async function exited(proc: ChildProcess, signal: NodeJS.Signals): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const done = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill(signal);
    await done;
  }

  // Undone after the suite in reverse: the service, the bus, the fake LLM; then nats-server and the data.
  before(async () => {
    llm = await startFakeLlm();
    nats.release(() => llm.close());
    bus = await connectNatsBus({ servers: [nats.url], name: 'stale-test' });
    nats.release(() => bus.close());
    dataDir = nats.tempDir('task-scheduler-stale-');
    nats.release(() => child && exited(child, 'SIGTERM'));
  });

  it('marks the execution that was running stale, with completedAt, and keeps the schedules', async () => {
    child = startService();
    await untilAnswering();
    await request('create', { name: 'long-run', skillName: 'daily-meeting-digest' });
    await request('create', {
      name: 'nightly',
      skillName: 'daily-meeting-digest',
      cronExpression: '0 3 * * *',
      timezone: 'Europe/Paris',
    });
    llm.respond(() => ({ answer: 'never arrives', delayMs: 60_000 }));
    await request('run', { name: 'long-run' });
    await eventually(async () => llm.requests.length === 1, 10_000); // the model request is in flight
    const [running] = (
      await request<{ executions: TaskExecution[] }>('history', { name: 'long-run', limit: 10, offset: 0 })
    ).executions;
    expect(running).to.include({ status: 'running', completedAt: null });

    await exited(child, 'SIGKILL');
    child = startService();
    await untilAnswering();

    const [after] = (
      await request<{ executions: TaskExecution[] }>('history', { name: 'long-run', limit: 10, offset: 0 })
    ).executions;
    expect(after).to.include({
      executionId: running.executionId,
      status: 'stale',
      resultSummary: 'The service restarted while this execution was running',
    });
    expect(Date.parse(after.completedAt!)).to.be.above(Date.parse(running.startedAt));
    const { tasks } = await request<{ tasks: Task[] }>('list', {});
    expect(tasks.find((t) => t.name === 'long-run')).to.include({ lastStatus: 'stale' });
    const nightly = tasks.find((t) => t.name === 'nightly')!;
    expect(nightly).to.include({ cronExpression: '0 3 * * *', timezone: 'Europe/Paris', enabled: true });
    expect(Date.parse(nightly.nextRunAt!)).to.be.above(Date.now());

    // And the task runs again normally.
    llm.respond(() => ({ answer: 'fine now' }));
    await request('run', { name: 'long-run' });
    await eventually(async () => {
      const { executions } = await request<{ executions: TaskExecution[] }>('history', {
        name: 'long-run',
        limit: 10,
        offset: 0,
      });
      return executions[0].status === 'completed';
    }, 10_000);
  });
});
