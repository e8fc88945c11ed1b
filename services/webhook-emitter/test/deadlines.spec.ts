/**
 * One timer for every attempt's deadline: each attempt still ends at its own limit after its own
 * start, a finished one is never touched, and what the transport opens after expiry is ended.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { AttemptDeadlines } from '../src/delivery/deadlines.js';
import { Sender } from '../src/delivery/sender.js';
import { AddressPolicy, createGuardedAgents } from '@notetaker/net';
import { eventually, sleep } from '../../../test/support/wait.js';

describe('attempt deadlines', () => {
  it('ends each attempt at its own deadline, in start order, and leaves finished ones alone', async () => {
    const deadlines = new AttemptDeadlines(150);
    const first = deadlines.start();
    const firstRequest = new PassThrough();
    const failed: Error[] = [];
    firstRequest.on('error', (err) => failed.push(err));
    first.sent(firstRequest);
    await sleep(60);
    const second = deadlines.start();
    const done = deadlines.start();
    const doneBody = new PassThrough();
    done.answered(doneBody);
    deadlines.finish(done);

    await eventually(() => first.expired, 'the first deadline');
    const firstAt = performance.now() - first.startedAt;
    expect(firstAt).to.be.at.least(149).and.below(400);
    expect(firstRequest.destroyed, 'its request').to.equal(true);
    await eventually(() => failed.length === 1, 'the request to fail');
    expect(failed[0].message).to.equal('attempt deadline');
    expect(second.expired, 'the second still has time').to.equal(false);

    await eventually(() => second.expired, 'the second deadline');
    expect(performance.now() - second.startedAt).to.be.at.least(149);
    expect(done.expired || doneBody.destroyed, 'a finished attempt').to.equal(false);
  });

  it('ends every attempt on shutdown, and an answer that comes after at once', () => {
    const deadlines = new AttemptDeadlines(60_000);
    const a = deadlines.start();
    const b = deadlines.start();
    deadlines.expireAll();
    expect(a.expired && b.expired).to.equal(true);
    const lateAnswer = new PassThrough();
    a.answered(lateAnswer);
    expect(lateAnswer.destroyed, 'an answer that comes after expiry').to.equal(true);
  });

  it('times out a real attempt whether the receiver stalls before answering or in the middle of its body', async () => {
    const server = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/mid-body') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('only part of it');
      }
      // /silent: never answers at all
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const agents = createGuardedAgents({
      policy: new AddressPolicy({ allowPrivate: true, allowedHosts: [] }),
      maxSocketsPerReceiver: 4,
    });
    const sender = new Sender(agents, 200);
    try {
      const [silent, midBody] = await Promise.all(
        ['/silent', '/mid-body'].map((path) => sender.post(`${base}${path}`, Buffer.from('{}'), {})),
      );
      for (const result of [silent, midBody]) {
        expect(result).to.include({ kind: 'timeout', status: null, error: 'no answer within 200 ms' });
        expect(result.durationMs).to.be.at.least(199).and.below(1000);
      }
    } finally {
      agents.destroy();
      server.closeAllConnections();
      server.close();
    }
  });
});
