/** A benchmark's main run on its world: bounded by a watchdog, a failure printed, the world closed whatever happens. */
import type { World } from '../../e2e/support/world.js';

export async function runBounded(
  world: World,
  deadlineMs: number,
  main: (world: World) => Promise<void>,
): Promise<void> {
  // Everything is bounded; this is the last resort if something hangs anyway.
  const watchdog = setTimeout(() => {
    console.log(`gave up after ${(deadlineMs / 1000).toFixed(0)} s`);
    void world.close().finally(() => process.exit(1));
  }, deadlineMs);
  try {
    await main(world);
  } catch (err) {
    console.log(`bench failed: ${(err as Error).stack ?? String(err)}`);
    process.exitCode = 1;
  } finally {
    clearTimeout(watchdog);
    await world.close();
  }
}
