import { expect } from 'chai';
import { connectNatsBus, type NatsBus } from '../src/index.js';
import { ServiceError } from '@notetaker/contracts';
import { eventually, sleep } from '../../../test/support/wait.js';
import { busContract } from './bus.contract.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { findNatsServerBinary, startNatsServer, type NatsServerHandle } from './support/nats-server.js';

/** Where the suite's server comes from: NATS_URL if given, else a nats-server it spawns itself. */
let server: NatsServerHandle | undefined;
let natsUrl: string | undefined;
let unavailableReason: string | undefined;

async function ensureServer(): Promise<string | undefined> {
  if (natsUrl || unavailableReason) return natsUrl;
  if (process.env.NATS_URL) return (natsUrl = process.env.NATS_URL);
  const binary = findNatsServerBinary();
  if (!binary) {
    unavailableReason = 'no nats-server binary on PATH and NATS_URL is not set';
    console.log(`    skipping NATS bus tests: ${unavailableReason}`);
    return undefined;
  }
  server = await startNatsServer(binary);
  return (natsUrl = server.url);
}

async function connectPair(url: string) {
  const a = await connectNatsBus({ servers: url, name: 'contract-a', reconnectTimeWaitMs: 100 });
  const b = await connectNatsBus({ servers: url, name: 'contract-b', reconnectTimeWaitMs: 100 });
  return { a, b, cleanup: async () => void (await Promise.all([a.close(), b.close()])) };
}

describe('NatsBus', function () {
  before(async function () {
    // Without a server there is nothing to test against; skipping (not failing) keeps the suite
    // usable on machines without NATS, and the reason is printed above.
    if (!(await ensureServer())) this.skip();
  });

  after(async function () {
    await server?.stop();
  });

  busContract('nats', async () => connectPair(natsUrl!));

  describe('what one turn of the event loop sends', function () {
    let pair: Awaited<ReturnType<typeof connectPair>> | undefined;

    afterEach(async function () {
      await pair?.cleanup();
    });

    it('goes out in the order it was sent: publishes, requests and replies alike', async function () {
      pair = await connectPair(natsUrl!);
      const { a, b } = pair;
      const heardByA: unknown[] = [];
      const heardByB: unknown[] = [];
      a.subscribe('turn.to-a', (data) => void heardByA.push(data));
      b.subscribe('turn.to-b', (data) => void heardByB.push(data));
      // The handler publishes, awaits (a microtask checkpoint between), then replies.
      b.serve('turn.ask', async (n) => {
        b.publish('turn.to-a', `event before reply ${String(n)}`);
        await Promise.resolve();
        return { sawPublishedBefore: [...heardByB] };
      });
      await Promise.all([a.flush(), b.flush()]);

      a.publish('turn.to-b', 'published before the request');
      const replies = await Promise.all([1, 2, 3].map((n) => a.request('turn.ask', n)));
      // A's publish reached B before A's requests did; B's event reached A before B's reply did.
      expect(replies).to.deep.equal([1, 2, 3].map(() => ({ sawPublishedBefore: ['published before the request'] })));
      expect(heardByA).to.deep.equal([1, 2, 3].map((n) => `event before reply ${n}`));
    });
  });

  describe('replies', function () {
    let pair: Awaited<ReturnType<typeof connectPair>> | undefined;

    afterEach(async function () {
      await pair?.cleanup();
    });

    it('reach their own request, out of order too, and one too late fails only its request', async function () {
      pair = await connectPair(natsUrl!);
      const { a, b } = pair;
      b.serve('replies.slow', async (ms) => {
        await sleep(ms as number);
        return ms;
      });
      await b.flush();
      const late = rejectionOf(a.request('replies.slow', 300, { timeoutMs: 100 }));
      const answers = await Promise.all([120, 60, 0].map((ms) => a.request('replies.slow', ms)));
      expect(answers).to.deep.equal([120, 60, 0]);
      expect(await late)
        .to.be.instanceOf(ServiceError)
        .with.property('code', 'bus_timeout');
      await sleep(250); // the late reply arrives now, with nobody waiting for it
      expect(await a.request('replies.slow', 0)).to.equal(0);
    });
  });

  describe('server restart', function () {
    let pair: Awaited<ReturnType<typeof connectPair>> | undefined;

    before(function () {
      // Restarting needs a server this process owns; a shared NATS_URL server is not ours to kill.
      if (!server) this.skip();
    });

    afterEach(async function () {
      await pair?.cleanup();
    });

    it('reconnects after the server restarts and the next request succeeds', async function () {
      pair = await connectPair(server!.url);
      const { a, b } = pair;
      b.serve('restart.echo', (data) => data, { queue: 'q' });
      await b.flush();
      expect(await a.request('restart.echo', 1)).to.equal(1);

      await server!.stop();
      expect(await rejectionOf(a.request('restart.echo', 2, { timeoutMs: 200 }))).to.be.instanceOf(ServiceError);
      await server!.restart();

      // A flush resolves only on a live connection, after the client has re-sent its subscriptions.
      await Promise.all([untilFlushed(a), untilFlushed(b)]);
      expect(await a.request('restart.echo', 3, { timeoutMs: 2000 })).to.equal(3);
    });
  });
});

/** Retries flush until one round trip completes; flushes sent before the disconnect was noticed fail. */
async function untilFlushed(bus: NatsBus, timeoutMs = 10_000): Promise<void> {
  await eventually(
    async () => {
      await Promise.race([bus.flush(), sleep(1000).then(() => Promise.reject(new Error('flush timed out')))]);
      return true;
    },
    'a flush round trip',
    timeoutMs,
  );
}
