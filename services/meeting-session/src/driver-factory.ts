/**
 * The worker's driver factory: the one given (tests give a scripted platform), else the browser
 * drivers of src/drivers, loaded on first use. Loading is lazy so a registry-only process, and a
 * worker that never gets a meeting, never load puppeteer; a failure to load or configure them is
 * reported per meeting as `browser_unavailable` and tried again for the next one.
 */
import type { DriverFactory } from './drivers/driver.js';

export interface LazyDriverFactory {
  get(): Promise<DriverFactory>;
  close(): Promise<void>;
}

export function lazyDriverFactory(given: DriverFactory | undefined, env: NodeJS.ProcessEnv): LazyDriverFactory {
  let loaded: Promise<DriverFactory> | null = given ? Promise.resolve(given) : null;
  return {
    get() {
      loaded ??= (async () => {
        const drivers = await import('./drivers/index.js');
        return drivers.createDriverFactory(drivers.driverOptionsFromEnv(env));
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
