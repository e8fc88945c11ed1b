/**
 * The fault proxy the storage and whole-stack tests put in front of a local server
 * (test/support/fault-proxy.ts), against a plain HTTP server: every mode does what it says, and
 * switching modes keeps the port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startFaultProxy, type FaultProxy } from '../../../test/support/fault-proxy.js';

describe('fault proxy', () => {
  let server: http.Server;
  let proxy: FaultProxy;
  /** When each request reached the server, by its path. */
  const arrivals = new Map<string, number>();

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        arrivals.set(req.url ?? '', Date.now());
        res.end(`echo ${req.method} ${req.url} ${body}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await startFaultProxy({ port: (server.address() as AddressInfo).port });
  });
  after(async () => {
    await proxy?.close();
    server?.close();
  });

  /** One request on a connection of its own (a pooled one would outlive a switch of mode). */
  const send = (path: string, body = '', signal?: AbortSignal) =>
    new Promise<{ status: number; text(): Promise<string> }>((resolve, reject) => {
      const req = http.request(`${proxy.url}${path}`, { method: body ? 'PUT' : 'GET', agent: false, signal }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: async () => text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });

  it('passes requests and answers through untouched', async () => {
    await proxy.setMode({ kind: 'pass' });
    const answer = await send('/a', 'hello');
    expect(answer.status).to.equal(200);
    expect(await answer.text()).to.equal('echo PUT /a hello');
  });

  it('refuses connections, and takes them again on the same port', async () => {
    await proxy.setMode({ kind: 'refuse' });
    const err = await send('/b').then(
      () => null,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(err?.code).to.equal('ECONNREFUSED');
    await proxy.setMode({ kind: 'pass' });
    expect((await send('/b')).status).to.equal(200);
  });

  it('answers 503 to every request without the server seeing it', async () => {
    await proxy.setMode({ kind: 'unavailable' });
    const answer = await send('/c', 'lost');
    expect(answer.status).to.equal(503);
    expect(await answer.text()).to.include('ServiceUnavailable');
    expect(arrivals.has('/c')).to.equal(false);
  });

  it('delays every request by the time asked, so it lands late even when the client gave up', async () => {
    await proxy.setMode({ kind: 'delay', delayMs: 600 });
    const sent = Date.now();
    const answer = await send('/d', 'late');
    expect(await answer.text()).to.equal('echo PUT /d late');
    expect(arrivals.get('/d')! - sent).to.be.at.least(550);
    // A client that stops waiting: its request still reaches the server, that late.
    const abandoned = Date.now();
    await send('/e', 'given up', AbortSignal.timeout(100)).catch(() => null);
    expect(arrivals.has('/e')).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(arrivals.get('/e')! - abandoned).to.be.at.least(550);
  });

  it('hangs: takes the connection and never answers', async () => {
    await proxy.setMode({ kind: 'hang' });
    const before = proxy.connections;
    const err = await send('/f', 'nothing', AbortSignal.timeout(500)).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.name).to.equal('AbortError');
    expect(proxy.connections).to.equal(before + 1);
    expect(arrivals.has('/f')).to.equal(false);
    await proxy.setMode({ kind: 'pass' });
  });
});
