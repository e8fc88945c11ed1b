/**
 * Functions the page calls to hand the driver a string, answered with nothing: Chromium's own
 * bindings (CDP `Runtime.addBinding`) on a session of the driver's. Puppeteer's exposeFunction
 * answers every call with an evaluation back in the page (the promise it returned, resolved there):
 * a round trip that audio paid ten times a second for each track and captions at every change.
 * Measured on 4.3 KB payloads, the worker's CPU a call went from 450 to 183 µs, and the renderer
 * evaluates nothing.
 *
 * A binding stays through reloads and navigations, defined before any script of the page (and
 * before the driver's evaluateOnNewDocument scripts) runs; it needs the session's Runtime domain
 * enabled (which sends that session every console message and context of the page), so all of a
 * page's bindings share one session, whoever binds them. It is the page target's: every frame
 * rendered in the page's process has it (Zoom's client in its same-origin iframe#webclient,
 * client-frame.ts), a cross-origin iframe rendered in a process of its own gets none (the
 * platforms' calls, tracks and captions are never in one; puppeteer's exposeFunction bound those
 * iframes too).
 */
import type { CDPSession, Page } from 'puppeteer-core';

export type BindingHandlers = Record<string, (payload: string) => void>;

interface Binding {
  handle(payload: string): void;
  onError(error: unknown): void;
}

/** Each page's one session, and the bindings made on it. */
const pages = new WeakMap<Page, { session: Promise<CDPSession>; bindings: Map<string, Binding> }>();

/** Installs `handlers` as `window[name](payload)`; a handler that throws is reported to `onError`, never to the page. */
export async function bindPage(
  page: Page,
  handlers: BindingHandlers,
  onError: (error: unknown) => void,
): Promise<void> {
  const names = Object.keys(handlers);
  if (names.length === 0) return;
  let bound = pages.get(page);
  if (!bound) {
    const bindings = new Map<string, Binding>();
    bound = { session: openSession(page, bindings), bindings };
    pages.set(page, bound);
  }
  for (const name of names) {
    if (bound.bindings.has(name)) throw new Error(`${name} is already bound on this page`);
    bound.bindings.set(name, { handle: handlers[name], onError });
  }
  const session = await bound.session;
  for (const name of names) await session.send('Runtime.addBinding', { name });
}

async function openSession(page: Page, bindings: Map<string, Binding>): Promise<CDPSession> {
  const session = await page.createCDPSession();
  session.on('Runtime.bindingCalled', ({ name, payload }) => {
    const binding = bindings.get(name);
    if (!binding) return;
    try {
      binding.handle(payload);
    } catch (error) {
      binding.onError(error);
    }
  });
  await session.send('Runtime.enable');
  return session;
}
