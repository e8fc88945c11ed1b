/**
 * The emitter as its own process (services/webhook-emitter/src/main.ts) over a real nats-server,
 * with its embedded store in a temporary DATA_DIR, killed with SIGKILL in the middle of a stream
 * and started again: every event still reaches the receiver, first arrivals in order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call, connectNatsBus, type NatsBus } from '@notetaker/bus';
import { findNatsServerBinary, startNatsServer, type NatsServerHandle } from '@notetaker/bus/test-support';
import { routes } from '@notetaker/contracts';
import { replies, startCallbackReceiver, type CallbackReceiver } from '../../../test/support/callback-receiver.js';
import { startEventLogStandIn, type EventLogStandIn } from './support/event-log-stand-in.js';
import { envelope, newMeetingId } from './support/harness.js';
import { startSigningGateway, type SigningGateway } from './support/signing-gateway.js';
import { eventually, sleep } from '../../../test/support/wait.js';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

describe('webhook emitter: SIGKILL mid-stream (own process, real NATS)', function () {
  this.timeout(60_000);
  let nats: NatsServerHandle;
  let bus: NatsBus;
  let dataDir: string;
  let gateway: SigningGateway;
  let log: EventLogStandIn;
  let rx: CallbackReceiver;
  let output = '';

  before(async function () {
    const binary = findNatsServerBinary();
    if (!binary) {
      console.log('    skipping: no nats-server binary on PATH (apt-get install nats-server)');
      this.skip();
    }
    nats = await startNatsServer(binary!);
    bus = await connectNatsBus({ servers: nats.url, name: 'crash-test' });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'webhooks-crash-'));
    gateway = await startSigningGateway(bus, dataDir);
    log = await startEventLogStandIn(bus, dataDir);
  });

  after(async () => {
    for (const child of children) await kill(child, 'SIGTERM');
    await rx?.close();
    await log?.stop();
    await gateway?.stop();
    await bus?.close();
    await nats?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function startEmitter(): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: {
        ...process.env,
        NATS_URL: nats.url,
        DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'warn',
        WEBHOOK_RETRY_DELAYS_MS: '50',
        WEBHOOK_RETRY_JITTER: '0',
        WEBHOOK_GAP_GRACE_MS: '100',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-8000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  }

  /** Registration doubles as the readiness probe: it answers once the emitter is subscribed. */
  async function registerWhenUp(meetingId: string, callbackUrl: string, tokenId: string): Promise<void> {
    await eventually(
      () => call(bus, routes.webhooks.register, { meetingId, callbackUrl, tokenId }, { timeoutMs: 2000 }),
      'the emitter to come up (to answer a registration)',
      20_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${output}`, { cause: err });
    });
  }

  it('delivers every event once restarted, first arrivals in order', async () => {
    const token = await gateway.createToken('crash');
    // A little slow per request, so the stream is mid-way when the kill comes.
    rx = await startCallbackReceiver({ secret: token.signingSecret, defaultReply: replies.delay(3) });
    const meetingId = newMeetingId();
    const total = 300;
    let child = startEmitter();
    await registerWhenUp(meetingId, `${rx.url}/hook`, token.id);

    let published = 0;
    const publishUpTo = async (n: number) => {
      while (published < n) {
        published++;
        await log.publish(
          envelope(
            meetingId,
            published,
            published === total ? 'meeting_status' : 'segment_finalized',
            published === total ? { status: 'ended' } : undefined,
          ),
        );
        // Paced like a live meeting's stream, not one burst.
        if (published % 10 === 0) await sleep(5);
      }
    };
    await publishUpTo(150);
    await rx.waitForEvents(40, 15_000);
    await kill(child, 'SIGKILL');
    const atKill = rx.events().length;
    await publishUpTo(220); // lost on the bus while the emitter is down; meeting-session's log has them
    child = startEmitter();
    // The rest goes out live once the new emitter is up (registering again changes nothing).
    await registerWhenUp(meetingId, `${rx.url}/hook`, token.id);
    await publishUpTo(total);

    const events = await rx.waitForEvents(total, 40_000);
    const duplicates = rx.received.length - rx.events().length;
    console.log(`      killed after ${atKill} events; ${duplicates} redelivered after the restart (same event id)`);
    expect(atKill).to.be.below(total);
    expect(events.map((c) => c.sequence)).to.deep.equal(Array.from({ length: total }, (_, i) => i + 1));
    expect(rx.received.every((c) => c.signatureValid)).to.equal(true);
    expect(events.every((c) => c.eventId === `${meetingId}:${c.sequence}`)).to.equal(true);
  });
});

async function kill(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
