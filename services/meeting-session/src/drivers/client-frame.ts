/**
 * The frame a platform's client is drawn in: the page itself, or a same-origin iframe that holds
 * it (Zoom's web client renders in `iframe#webclient` at /wc/<id>/join?fromPWA=1). The platform's
 * page script runs there (every reading and action), and so do the caption observer (whose binding
 * Chromium gives every frame of the page, page-bindings.ts) and the audio capture (installed in
 * every new document, page-audio.ts). Keyboard input goes to the focused element, inside the
 * iframe too.
 *
 * The client's iframe is the one the hint names, else one that fills most of the window; a
 * cross-origin one (a CAPTCHA, an ad) never holds the client. The frame found is kept while it is
 * attached; while the client is in the top page, the page's frames are looked at again at most
 * once a second (a navigation may bring the iframe).
 */
import type { Frame, Page } from 'puppeteer-core';
import type { PlatformAdapter } from './platform.js';

const RECHECK_TOP_MS = 1_000;
/** An iframe in an iframe is looked into too, this deep. */
const MAX_DEPTH = 3;

export class ClientFrames {
  private readonly known = new WeakMap<Page, { frame: Frame; at: number }>();
  private readonly findIframe: string;

  /** `hint`: a CSS selector for the platform's own client iframe (`iframe#webclient`). */
  constructor(
    hint: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.findIframe = clientIframeScript(hint);
  }

  /** The frame that holds the client in `page` now. */
  async of(page: Page): Promise<Frame> {
    const main = page.mainFrame();
    const known = this.known.get(page);
    const now = this.clock();
    if (known && !known.frame.detached && (known.frame !== main || now - known.at < RECHECK_TOP_MS)) return known.frame;
    let frame = main;
    for (let depth = 0; depth < MAX_DEPTH && frame.childFrames().length > 0; depth++) {
      const inner = await this.iframeIn(frame);
      if (!inner) break;
      frame = inner;
    }
    this.known.set(page, { frame, at: now });
    return frame;
  }

  private async iframeIn(frame: Frame): Promise<Frame | null> {
    const handle = await frame.evaluateHandle(this.findIframe).catch(() => null);
    if (!handle) return null;
    try {
      const element = handle.asElement();
      return element ? await element.contentFrame() : null;
    } finally {
      await handle.dispose().catch(() => {});
    }
  }
}

/** A platform's `run` (see scriptRunner) that runs its page script in the frame holding the client. */
export function clientFrameRunner<Item>(
  script: (action: string, arg?: unknown) => string,
  frames: ClientFrames,
): PlatformAdapter<Item>['run'] {
  return async (page, action, ...arg) =>
    (await frames.of(page)).evaluate(script(action.name, arg[0])) as Promise<never>;
}

/** Page JavaScript: the iframe holding the client (the hinted one, else one filling half the window), same-origin, or null. */
function clientIframeScript(hint: string): string {
  return `(function () {
    var frames = Array.prototype.slice.call(document.querySelectorAll('iframe'));
    var area = innerWidth * innerHeight;
    var big = frames.filter(function (f) { var r = f.getBoundingClientRect(); return r.width * r.height >= area / 2; });
    var pick = document.querySelector(${JSON.stringify(hint)}) || big[0] || null;
    try { return pick && pick.contentDocument ? pick : null; } catch (e) { return null; }
  })()`;
}
