/**
 * BENCH_PROFILE=<folder>: a CPU profile of each measured run alone (no start-up, no teardown),
 * written as `<folder>/<label>.cpuprofile` for Chrome DevTools or any .cpuprofile viewer.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';

export async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  const folder = process.env.BENCH_PROFILE;
  if (!folder) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // Every 100 us rather than every 1 ms: a request costs a few hundred microseconds.
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `${label.replace(/[^\w.-]+/g, '_')}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
