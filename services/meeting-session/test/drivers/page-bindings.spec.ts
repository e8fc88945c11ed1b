/**
 * The driver's page bindings in headless Chromium: what the page hands over arrives in order,
 * through reloads and navigations, defined before the page's own scripts; a handler that throws
 * is reported and the page's next calls still arrive; two owners bind on one page alike.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../../../../test/support/wait.js';
import { bindPage } from '../../src/drivers/page-bindings.js';
import { chromiumPerSuite } from '../recording/media-recorder.js';

/** A page whose own first script calls the binding, with the page's path. */
const PAGE = `<!doctype html><script>window.__seen(location.pathname)</script>`;

describe('drivers: page bindings (headless Chromium)', function () {
  this.timeout(30_000);
  const browser = chromiumPerSuite();
  let server: http.Server | undefined;
  let base: string;

  before(async () => {
    server = http.createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server?.close());

  it('hands over what the page says, in order, from its first script on, through a reload and a navigation', async () => {
    const page = await browser().newPage();
    const seen: string[] = [];
    const said: string[] = [];
    const errors: unknown[] = [];
    await bindPage(page, { __seen: (p) => seen.push(p), __said: (p) => said.push(p) }, (e) => errors.push(e));
    await page.goto(`${base}/first`);
    await page.evaluate('for (let i = 0; i < 200; i++) window.__said(String(i))');
    await page.reload();
    await page.goto(`${base}/second`);
    await page.evaluate('window.__said("after")');
    await eventually(() => said.length === 201 && seen.length === 3);
    expect(seen).to.deep.equal(['/first', '/first', '/second']);
    expect(said).to.deep.equal([...Array.from({ length: 200 }, (_, i) => String(i)), 'after']);
    expect(await page.evaluate('typeof window.__said("x")')).to.equal('undefined');
    expect(errors).to.deep.equal([]);
    await page.close();
  });

  it('reports a handler that throws, and the next calls still arrive', async () => {
    const page = await browser().newPage();
    const said: string[] = [];
    const errors: string[] = [];
    const handlers = {
      __seen: () => {},
      __said: (payload: string) => {
        if (payload === 'bad') throw new Error('cannot read bad');
        said.push(payload);
      },
    };
    await bindPage(page, handlers, (e) => errors.push((e as Error).message));
    await page.goto(`${base}/`);
    await page.evaluate('window.__said("one"); window.__said("bad"); window.__said("two")');
    await eventually(() => said.length === 2);
    expect(said).to.deep.equal(['one', 'two']);
    expect(errors).to.deep.equal(['cannot read bad']);
    await page.close();
  });

  it('binds the calls of two owners on one page each to its own handlers and errors; a name bound twice is refused', async () => {
    const page = await browser().newPage();
    const seen: string[] = [];
    const said: string[] = [];
    const errors: string[] = [];
    await bindPage(page, { __seen: (p) => seen.push(p) }, (e) => errors.push(`seen: ${(e as Error).message}`));
    const saying = (p: string) => {
      if (p === 'bad') throw new Error('bad');
      said.push(p);
    };
    await bindPage(page, { __said: saying }, (e) => errors.push(`said: ${(e as Error).message}`));
    let refused: unknown;
    await bindPage(page, { __said: () => {} }, () => {}).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.include('__said is already bound');
    await page.goto(`${base}/one`);
    await page.evaluate('window.__said("a"); window.__said("bad"); window.__said("b")');
    await eventually(() => said.length === 2 && seen.length === 1);
    expect(seen).to.deep.equal(['/one']);
    expect(said).to.deep.equal(['a', 'b']);
    expect(errors).to.deep.equal(['said: bad']);
    await page.close();
  });
});
