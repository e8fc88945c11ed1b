/**
 * Finding, launching and sharing Chromium.
 *
 * One browser per worker, one isolated BrowserContext per meeting, chosen by measurement
 * (test/bench/driver-memory.bench.ts: live simulated meetings, PSS from /proc/<pid>/smaps_rollup
 * summed over every Chromium process, on this 2-core machine):
 *
 *                                   1 meeting    5 meetings (per meeting)
 *   a browser per meeting            ~387 MB     ~990 MB   (~199 MB)
 *   one browser, context each        ~387 MB     ~520 MB   (~104 MB; each further one ~33 MB)
 *
 * A browser of its own costs every meeting the browser, GPU, network, storage, audio and video
 * capture processes again; a shared one costs each further meeting little more than its renderer.
 * Contexts still keep cookies, storage and permissions of meetings apart. The price is the blast
 * radius of a browser crash, bounded by `meetingsPerBrowser`: a full browser makes the pool launch
 * another, and a crash ends exactly the meetings whose contexts lived in the browser that died.
 */
import puppeteer, { type Browser, type BrowserContext } from 'puppeteer-core';
import { findChrome } from '@notetaker/find-chrome';
import { killBrowserProcesses } from './process-tree.js';
import { chromiumCommand } from './thread-priority.js';

export class BrowserUnavailableError extends Error {}

export function chromeArgs(extraArgs: string[]): string[] {
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // Fake camera and microphone, granted without a prompt: the bot joins with both off anyway.
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    '--lang=en-US',
    '--mute-audio',
    // A recording's AudioContext runs without a click (--mute-audio keeps it silent all the same).
    '--autoplay-policy=no-user-gesture-required',
    // navigator.webdriver=true gets automated guests turned away by the platforms.
    '--disable-blink-features=AutomationControlled',
    // The omnibox pop-up is a preloaded WebUI renderer per context: ~30 MB a meeting for nothing.
    '--disable-features=PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
    ...extraArgs,
  ];
}

export interface BrowserPoolOptions {
  chromePath?: string;
  headless: boolean;
  extraArgs: string[];
  /** Meetings sharing one browser before another is launched (1 = a browser per meeting). */
  meetingsPerBrowser: number;
  /** The window (and viewport) size; default 1280x720 (BOT_WINDOW_SIZE). */
  windowSize?: { width: number; height: number };
}

/** A meeting's share of a browser: its own context, and word if the browser dies under it. */
export interface BrowserLease {
  readonly context: BrowserContext;
  /** The browser's pid, which is also its process group id. */
  readonly browserPid: number | null;
  onCrash(listener: () => void): void;
  /** Closes the context, and the browser with it when no meeting uses it any more. */
  release(): Promise<void>;
}

interface PooledBrowser {
  ready: Promise<Browser>;
  browser: Browser | null;
  pid: number | null;
  users: number;
  state: 'launching' | 'open' | 'closing' | 'crashed';
  crashListeners: Set<() => void>;
}

const CLOSE_TIMEOUT_MS = 5_000;

/**
 * The user agent of every page, frame and worker of the bots' browsers: this Chromium's own without
 * "Headless", as a desktop Chrome of the same version sends it, given with --user-agent at launch.
 * A launch flag rather than a per-page override (CDP Network.setUserAgentOverride, puppeteer's
 * setUserAgent): it reaches every frame, worker and service worker; it keeps the client hints
 * (navigator.userAgentData, Sec-CH-UA), which an override without them empties, as no desktop
 * Chrome does; and it needs no Network domain on the pages. Asked of a browser launched for that
 * once per executable and process. (Accept-Language comes from --lang: "en-US,en;q=0.9".)
 */
const userAgents = new Map<string, Promise<string>>();

function desktopUserAgent(executablePath: string, launch: () => Promise<Browser>): Promise<string> {
  let userAgent = userAgents.get(executablePath);
  if (!userAgent) {
    userAgent = (async () => {
      const probe = await launch();
      try {
        return (await probe.userAgent()).replace('HeadlessChrome', 'Chrome');
      } finally {
        await probe.close().catch(() => {});
      }
    })();
    userAgents.set(executablePath, userAgent);
    userAgent.catch(() => userAgents.delete(executablePath)); // a failed start is asked again next time
  }
  return userAgent;
}

export class BrowserPool {
  private readonly browsers = new Set<PooledBrowser>();
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  async acquire(): Promise<BrowserLease> {
    if (this.closed) throw new BrowserUnavailableError('the driver factory is closed');
    const entry = this.pick();
    // Counted before any await, so concurrent starts never overfill a browser.
    entry.users++;
    let context: BrowserContext;
    try {
      const browser = await entry.ready;
      if (entry.state !== 'open') throw new BrowserUnavailableError('the browser exited while starting');
      context = await browser.createBrowserContext();
    } catch (error) {
      await this.unuse(entry);
      throw error;
    }
    return this.lease(entry, context);
  }

  /** The browsers running now, for diagnostics and tests. */
  running(): Array<{ pid: number | null; meetings: number }> {
    return [...this.browsers].map((entry) => ({ pid: entry.pid, meetings: entry.users }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.browsers].map((entry) => this.closeBrowser(entry)));
  }

  private pick(): PooledBrowser {
    for (const entry of this.browsers) {
      if (entry.state !== 'closing' && entry.state !== 'crashed' && entry.users < this.options.meetingsPerBrowser) {
        return entry;
      }
    }
    return this.launch();
  }

  private launch(): PooledBrowser {
    const entry: PooledBrowser = {
      ready: Promise.resolve(null as unknown as Browser),
      browser: null,
      pid: null,
      users: 0,
      state: 'launching',
      crashListeners: new Set(),
    };
    this.browsers.add(entry);
    entry.ready = this.startBrowser().then(
      async (browser) => {
        entry.browser = browser;
        entry.pid = browser.process()?.pid ?? null;
        entry.state = entry.state === 'launching' ? 'open' : entry.state;
        browser.on('disconnected', () => this.onDisconnected(entry));
        if (!browser.connected) this.onDisconnected(entry);
        return browser;
      },
      (error: Error) => {
        this.browsers.delete(entry);
        entry.state = 'crashed';
        throw new BrowserUnavailableError(`Chromium did not start: ${error.message}`);
      },
    );
    // Callers see the failure through acquire(); this only keeps an unawaited one quiet.
    entry.ready.catch(() => {});
    return entry;
  }

  private async startBrowser(): Promise<Browser> {
    const executablePath = findChrome(this.options.chromePath);
    if (!executablePath) {
      throw new Error(
        this.options.chromePath ? `${this.options.chromePath} is not an executable` : 'no Chromium or Chrome installed',
      );
    }
    const userAgent = await desktopUserAgent(executablePath, () => this.launchChromium(executablePath, []));
    const browser = await this.launchChromium(executablePath, [`--user-agent=${userAgent}`]);
    // Meetings get contexts of their own; the start-up tab would only hold a renderer (~20 MB).
    for (const page of await browser.pages()) await page.close().catch(() => {});
    return browser;
  }

  private launchChromium(executablePath: string, args: string[]): Promise<Browser> {
    const { headless } = this.options;
    const windowSize = this.options.windowSize ?? { width: 1280, height: 720 };
    // puppeteer's own flags, less --enable-automation, after the command (setpriv's or none).
    const allArgs = puppeteer
      .defaultArgs({
        headless,
        args: [
          `--window-size=${windowSize.width},${windowSize.height}`,
          ...args,
          ...chromeArgs(this.options.extraArgs),
        ],
      })
      .filter((arg) => arg !== '--enable-automation');
    const command = chromiumCommand(executablePath, allArgs);
    return puppeteer.launch({
      executablePath: command.executablePath,
      headless,
      pipe: true,
      args: command.args,
      ignoreDefaultArgs: true,
      defaultViewport: windowSize,
      // puppeteer's request tracking enables CDP's Network domain on every page and frame, and
      // its issue reports the Audits domain: every request, answer, WebSocket frame and
      // event-stream message of the platform's client would be serialized to the worker (the real
      // clients make many), and no driver reads any of it. Measured on the simulators' light
      // traffic: the browser process's CPU a meeting -30%, the whole meeting's -7%.
      networkEnabled: false,
      issuesEnabled: false,
      // The worker decides how to shut down (leaving meetings first); puppeteer still kills the
      // browser if the process exits without closing it.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  }

  private lease(entry: PooledBrowser, context: BrowserContext): BrowserLease {
    const listeners = new Set<() => void>();
    const onCrash = () => listeners.forEach((listener) => listener());
    entry.crashListeners.add(onCrash);
    let released: Promise<void> | null = null;
    return {
      context,
      browserPid: entry.pid,
      onCrash: (listener) => {
        listeners.add(listener);
        if (entry.state === 'crashed') queueMicrotask(listener);
      },
      release: () => {
        released ??= (async () => {
          entry.crashListeners.delete(onCrash);
          if (entry.state === 'open') await context.close().catch(() => {});
          await this.unuse(entry);
        })();
        return released;
      },
    };
  }

  private async unuse(entry: PooledBrowser): Promise<void> {
    entry.users--;
    if (entry.users <= 0 && (entry.state === 'open' || entry.state === 'launching')) await this.closeBrowser(entry);
  }

  private async closeBrowser(entry: PooledBrowser): Promise<void> {
    if (entry.state === 'closing') return;
    const wasCrashed = entry.state === 'crashed';
    entry.state = 'closing';
    this.browsers.delete(entry);
    if (wasCrashed) return;
    const browser = await entry.ready.catch(() => null);
    if (!browser) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      browser.close().catch(() => {}),
      new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    if (entry.pid) killBrowserProcesses(entry.pid);
  }

  private onDisconnected(entry: PooledBrowser): void {
    if (entry.state === 'closing' || entry.state === 'crashed') return;
    entry.state = 'crashed';
    this.browsers.delete(entry);
    // The browser process is gone; helpers that outlive it would linger until the worker exits.
    // (Its crash handler lives outside the group and exits by itself once the browser is gone.)
    if (entry.pid) killBrowserProcesses(entry.pid);
    for (const listener of entry.crashListeners) listener();
  }
}
