/**
 * The bare in-page caption pipeline a meeting bench compares the bots with: a Chromium of its own
 * (the bots' flags) with one page that receives caption texts the way the simulated platforms push
 * them (server-sent events from this process), puts each in the DOM, and hands it back on a
 * MutationObserver through a Runtime binding, the bots' own way out of the page. No platform, no
 * driver: what remains is the floor any bot pays for a caption change.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import puppeteer, { type Browser } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { chromeArgs } from '../../../services/meeting-session/src/drivers/browser.js';

const PAGE = `<!doctype html><html><body><div id="c"></div><script>
var c = document.getElementById('c');
new MutationObserver(function () { window.__bare(c.textContent); }).observe(c, { childList: true, characterData: true, subtree: true });
new EventSource('/events').onmessage = function (e) { c.textContent = e.data; };
</script></body></html>`;

export interface BarePipeline {
  /** Shows `text` (unique per call); its latency is recorded when the page hands it back. */
  show(text: string): void;
  /** Latencies (ms) since the last take. */
  take(): number[];
  pid(): number | null;
  close(): Promise<void>;
}

export async function startBarePipeline(): Promise<BarePipeline> {
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    if (req.url === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write(':\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser: Browser = await puppeteer.launch({
    executablePath: findChrome()!,
    headless: true,
    pipe: true,
    args: chromeArgs([]),
  });
  const page = await browser.newPage();
  const shownAt = new Map<string, number>();
  let latencies: number[] = [];
  const cdp = await page.createCDPSession();
  await cdp.send('Runtime.enable');
  await cdp.send('Runtime.addBinding', { name: '__bare' });
  cdp.on('Runtime.bindingCalled', (e: { name: string; payload: string }) => {
    const at = shownAt.get(e.payload);
    if (at === undefined) return;
    shownAt.delete(e.payload);
    latencies.push(performance.now() - at);
  });
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  while (streams.size === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  return {
    show(text) {
      shownAt.set(text, performance.now());
      for (const res of streams) res.write(`data: ${text}\n\n`);
    },
    take() {
      const out = latencies;
      latencies = [];
      return out;
    },
    pid: () => browser.process()?.pid ?? null,
    async close() {
      await browser.close().catch(() => {});
      for (const res of streams) res.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
