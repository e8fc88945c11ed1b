import { expect } from 'chai';
import { errors, ServiceError } from '@notetaker/contracts';
import { JsonText, type Bus } from '../src/index.js';
import { eventually, sleep } from '../../../test/support/wait.js';
import { rejectionOf } from '../../../test/support/rejection.js';

/**
 * The one behaviour spec both adapters must pass. `a` and `b` are two connections to the same bus,
 * so every case that crosses them is a real cross-connection (and, for NATS, cross-socket) trip.
 */
export interface BusPair {
  a: Bus;
  b: Bus;
  cleanup(): Promise<void>;
}

export function busContract(name: string, makeBus: () => Promise<BusPair>): void {
  describe(`Bus contract: ${name}`, function () {
    let a: Bus;
    let b: Bus;
    let pair: BusPair | undefined;
    let seq = 0;
    // Fresh subjects per test, so a straggler from an earlier test can never be counted.
    const subject = (suffix: string) => `t${process.pid}.n${seq}.${suffix}`;

    beforeEach(async function () {
      seq++;
      pair = await makeBus();
      ({ a, b } = pair);
    });

    afterEach(async function () {
      await pair?.cleanup();
      pair = undefined;
    });

    it('answers a request across connections with a JSON copy of the data', async function () {
      let received: unknown;
      const sent = { n: 1, when: new Date(0), nested: { list: [1, 2] } };
      b.serve(subject('echo'), (data, ctx) => {
        received = data;
        return { got: data, subject: ctx.subject };
      });
      await b.flush();
      const reply = await a.request(subject('echo'), sent);
      const asJson = { n: 1, when: '1970-01-01T00:00:00.000Z', nested: { list: [1, 2] } };
      expect(reply).to.deep.equal({ got: asJson, subject: subject('echo') });
      expect(received).to.not.equal(sent);
      expect(await a.request(subject('echo'), undefined)).to.deep.equal({ subject: subject('echo') });
    });

    it('sends a payload already held as JSON text as that text, on publish, request and reply', async function () {
      const seen: unknown[] = [];
      b.subscribe(subject('pre.evt'), (data) => void seen.push(data));
      b.serve(subject('pre.req'), (data) => new JsonText(JSON.stringify({ echoed: data })));
      await b.flush();
      a.publish(subject('pre.evt'), new JsonText('{"sequence":1,"text":"caf\\u00e9"}'));
      expect(await a.request(subject('pre.req'), new JsonText('[1,"two"]'))).to.deep.equal({ echoed: [1, 'two'] });
      await a.flush();
      await eventually(() => seen.length === 1);
      expect(seen).to.deep.equal([{ sequence: 1, text: 'café' }]);
    });

    it('serves requests on a wildcard subject with the concrete subject in the context', async function () {
      b.serve(subject('calc.*'), async (data, ctx) => ({ op: ctx.subject.split('.').pop(), data }));
      await b.flush();
      expect(await a.request(subject('calc.add'), [1, 2])).to.deep.equal({ op: 'add', data: [1, 2] });
    });

    it('fails a request with bus_timeout when the server answers too late', async function () {
      b.serve(subject('slow'), () => sleep(300).then(() => 'late'));
      await b.flush();
      const started = Date.now();
      const err = await rejectionOf(a.request(subject('slow'), {}, { timeoutMs: 100 }));
      expectServiceError(err, errors.busTimeout(subject('slow')));
      expect(Date.now() - started).to.be.within(80, 280);
    });

    it('fails a request with no_responders at once when nobody serves the subject', async function () {
      const started = Date.now();
      const err = await rejectionOf(a.request(subject('nobody'), {}, { timeoutMs: 3000 }));
      expectServiceError(err, errors.noResponders(subject('nobody')));
      expect(Date.now() - started).to.be.below(1000);
    });

    it('gives each request to exactly one member of a queue group, and to every member some', async function () {
      const calls = { a: 0, b: 0 };
      a.serve(subject('work'), () => ++calls.a && 'a', { queue: 'workers' });
      b.serve(subject('work'), () => ++calls.b && 'b', { queue: 'workers' });
      await Promise.all([a.flush(), b.flush()]);
      const total = 200;
      const replies = await Promise.all(Array.from({ length: total }, () => a.request(subject('work'), {})));
      await Promise.all([a.flush(), b.flush()]);
      await sleep(50); // a duplicate delivery would show up here
      expect(calls.a + calls.b).to.equal(total);
      expect(calls.a).to.be.above(0);
      expect(calls.b).to.be.above(0);
      expect(replies.filter((r) => r === 'a')).to.have.length(calls.a);
    });

    it('fans a published message out to every plain subscriber while a queue group shares it', async function () {
      const seen: string[] = [];
      a.subscribe(subject('evt'), () => void seen.push('plain-a'));
      b.subscribe(subject('evt'), () => void seen.push('plain-b'));
      a.subscribe(subject('evt'), () => void seen.push('group'), { queue: 'g' });
      b.subscribe(subject('evt'), () => void seen.push('group'), { queue: 'g' });
      await Promise.all([a.flush(), b.flush()]);
      for (let i = 0; i < 10; i++) a.publish(subject('evt'), { i });
      await eventually(() => seen.length >= 30);
      await sleep(50); // more than 10 each would show up here
      const count = (who: string) => seen.filter((s) => s === who).length;
      expect([count('plain-a'), count('plain-b'), count('group')]).to.deep.equal([10, 10, 10]);
    });

    it('matches `*` to exactly one token', async function () {
      const got: string[] = [];
      b.subscribe(subject('meeting.*.started'), (_data, ctx) => void got.push(ctx.subject));
      await b.flush();
      for (const s of ['meeting.m1.started', 'meeting.m1.x.started', 'meeting.started', 'meeting.m2.ended']) {
        a.publish(subject(s), {});
      }
      a.publish(subject('meeting.last.started'), {});
      await eventually(() => got.length >= 2);
      expect(got).to.deep.equal([subject('meeting.m1.started'), subject('meeting.last.started')]);
    });

    it('matches `>` to one or more remaining tokens', async function () {
      const got: string[] = [];
      b.subscribe(subject('evt.>'), (_data, ctx) => void got.push(ctx.subject));
      await b.flush();
      for (const s of ['evt', 'evt.a', 'evt.a.b.c', 'other.evt.a']) a.publish(subject(s), {});
      a.publish(subject('evt.last'), {});
      await eventually(() => got.length >= 3);
      expect(got).to.deep.equal([subject('evt.a'), subject('evt.a.b.c'), subject('evt.last')]);
    });

    it("keeps one publisher's messages on one subject in order", async function () {
      const got: number[] = [];
      b.subscribe(subject('ordered'), (data) => void got.push((data as { i: number }).i));
      await b.flush();
      const total = 1000;
      for (let i = 0; i < total; i++) a.publish(subject('ordered'), { i });
      await a.flush();
      await eventually(() => got.length >= total);
      expect(got).to.deep.equal(Array.from({ length: total }, (_, i) => i));
    });

    it('rebuilds a ServiceError thrown by the server with code, message, status and retryable', async function () {
      b.serve(subject('conflict'), () => {
        throw errors.conflict('Name already taken');
      });
      b.serve(subject('teapot'), async () => {
        throw new ServiceError('teapot', 'Short and stout', 418, true);
      });
      await b.flush();
      expectServiceError(await rejectionOf(a.request(subject('conflict'), {})), errors.conflict('Name already taken'));
      expectServiceError(
        await rejectionOf(a.request(subject('teapot'), {})),
        new ServiceError('teapot', 'Short and stout', 418, true),
      );
    });

    it('turns any other thrown error into `internal` without its message', async function () {
      b.serve(subject('boom'), () => {
        throw new Error('password=hunter2');
      });
      b.serve(subject('async-boom'), async () => Promise.reject(new TypeError('secret path /etc')));
      await b.flush();
      for (const s of ['boom', 'async-boom']) {
        const err = await rejectionOf(a.request(subject(s), {}));
        expectServiceError(err, errors.internal());
        expect(String((err as Error).message)).to.not.match(/hunter2|secret/);
      }
    });

    it('stops delivering to a subscription once it is unsubscribed', async function () {
      const got: number[] = [];
      const sub = b.subscribe(subject('unsub'), (data) => void got.push(data as number));
      await b.flush();
      a.publish(subject('unsub'), 1);
      await eventually(() => got.length === 1);
      await sub.unsubscribe();
      a.publish(subject('unsub'), 2);
      await a.flush();
      await sleep(50); // a delivery after unsubscribe would show up here
      expect(got).to.deep.equal([1]);
    });

    it('close() lets in-flight handlers answer, then stops receiving', async function () {
      let started = false;
      let finished = false;
      b.serve(subject('drain'), async () => {
        started = true;
        await sleep(200);
        finished = true;
        return 'done';
      });
      await b.flush();
      const reply = a.request(subject('drain'), {}, { timeoutMs: 3000 });
      await eventually(() => started);
      await b.close();
      expect(finished).to.equal(true);
      expect(await reply).to.equal('done');
      await b.close(); // idempotent
      expect(() => b.publish(subject('drain'), {})).to.throw(ServiceError);
      const err = await rejectionOf(a.request(subject('drain'), {}, { timeoutMs: 1000 }));
      expectServiceError(err, errors.noResponders(subject('drain')));
    });
  });
}

export function expectServiceError(err: unknown, expected: ServiceError): void {
  expect(err).to.be.instanceOf(ServiceError);
  const actual = err as ServiceError;
  expect({
    code: actual.code,
    message: actual.message,
    status: actual.status,
    retryable: actual.retryable,
  }).to.deep.equal(expected.toWire());
}
