/**
 * The worker's driver factory: the one given (tests give a scripted platform), else the browser
 * drivers of src/drivers, loaded on first use. Loading is lazy so a registry-only process, and a
 * worker that never gets a meeting, never load puppeteer; a failure to load or configure them is
 * reported per meeting as `browser_unavailable` and tried again for the next one.
 */
import type { DriverFactory } from './drivers/driver.js';
import type { MeetingSessionConfig } from './config.js';

export interface LazyDriverFactory {
  get(): Promise<DriverFactory>;
  close(): Promise<void>;
}

/** The service's join and lobby limits bind the drivers too, so a bot never gives up before the actor would. */
type Limits = Pick<MeetingSessionConfig, 'joinTimeoutMs' | 'lobbyTimeoutMs'>;

export function lazyDriverFactory(
  given: DriverFactory | undefined,
  env: NodeJS.ProcessEnv,
  limits: Limits,
): LazyDriverFactory {
  let loaded: Promise<DriverFactory> | null = given ? Promise.resolve(given) : null;
  return {
    get() {
      loaded ??= (async () => {
        const drivers = await import('./drivers/index.js');
        const { joinTimeoutMs, lobbyTimeoutMs } = limits;
        return drivers.createDriverFactory({ ...drivers.driverOptionsFromEnv(env), joinTimeoutMs, lobbyTimeoutMs });
      })().catch((err: unknown) => {
        loaded = null;
        throw err;
      });
      return loaded;
    },
    async close() {
      if (!loaded) return;
      const factory = await loaded.catch(() => null);
      await factory?.close();
    },
  };
}
