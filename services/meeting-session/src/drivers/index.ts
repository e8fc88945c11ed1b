/**
 * The platform drivers: a factory that gives the meeting actor a driver for a Google Meet, Teams
 * or Zoom link, all of them sharing a pool of Chromium browsers.
 *
 *   const factory = createDriverFactory(driverOptionsFromEnv());
 *   const driver = factory.create({ platform, url, meetingId, displayName });
 *   await driver.start(listener);   // progress and captions arrive on the listener
 *   await driver.leave();
 *   await factory.close();          // on shutdown: leaves what is still running, closes browsers
 */
import type { DriverFactory, JoinTarget, MeetingDriver } from './driver.js';
import { BrowserPool } from './browser.js';
import { DRIVER_DEFAULTS, type DriverFactoryOptions } from './options.js';
import { PageDriver, type PageDriverSettings } from './page-driver.js';
import { PLATFORMS } from './platforms.js';

export type * from './driver.js';
export { driverOptionsFromEnv, DRIVER_DEFAULTS, type DriverFactoryOptions } from './options.js';
export { chromiumDescendants, browserProcesses, totalPssBytes } from './process-tree.js';

export interface PuppeteerDriverFactory extends DriverFactory {
  /** The browsers running now and how many meetings each carries (diagnostics, tests, benchmarks). */
  browsers(): Array<{ pid: number | null; meetings: number }>;
}

export function createDriverFactory(options: DriverFactoryOptions = {}): PuppeteerDriverFactory {
  const config = { ...DRIVER_DEFAULTS, ...definedOnly(options) };
  const pool = new BrowserPool({
    chromePath: config.chromePath,
    headless: config.headless,
    extraArgs: config.extraArgs ?? [],
    meetingsPerBrowser: Math.max(1, config.meetingsPerBrowser),
    windowSize: config.windowSize,
  });
  const settings: PageDriverSettings = {
    meetCaptionIdleMs: config.meetCaptionIdleMs,
    teamsCaptionIdleMs: config.teamsCaptionIdleMs,
    zoomCaptionIdleMs: config.zoomCaptionIdleMs,
    lobbyTimeoutMs: config.lobbyTimeoutMs,
    joinTimeoutMs: config.joinTimeoutMs,
    pollIntervalMs: config.pollIntervalMs,
    livePollIntervalMs: config.livePollIntervalMs,
    captionBlindAfterMs: config.captionBlindAfterMs,
    unknownScreenWarnMs: config.unknownScreenWarnMs,
    videoSavings: config.videoSavings,
  };
  const drivers = new Set<MeetingDriver>();

  return {
    create(target: JoinTarget): MeetingDriver {
      const named = { ...target, displayName: target.displayName.trim() || config.displayName };
      const inner = new PageDriver(named, PLATFORMS[target.platform].adapter, pool, settings);
      const driver: MeetingDriver = {
        start: (listener) => inner.start(listener),
        leave: () => inner.leave().finally(() => drivers.delete(driver)),
        sendChat: (text) => inner.sendChat(text),
        voice: () => inner.voice(),
      };
      drivers.add(driver);
      return driver;
    },
    async close() {
      await Promise.all([...drivers].map((driver) => driver.leave()));
      await pool.close();
    },
    browsers: () => pool.running(),
  };
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
