/**
 * Memory per live meeting of the puppeteer drivers: PSS (/proc/<pid>/smaps_rollup, shared pages
 * split among their users) summed over every Chromium process, divided by the meetings, for 1 and 5
 * concurrent meetings on the local platform simulators (Meet and Teams alternating), in the two
 * layouts the drivers can run: one browser per worker with a context per meeting (the default), and
 * one browser per meeting. Each meeting is live: admitted, a participant in, captions on and spoken.
 * Target: under 150 MB per meeting. `npx tsx test/bench/driver-memory.bench.ts`
 */
import { liveMeetingsMemory } from './support/live-meetings.js';

const COUNTS = [1, 5];
const MB = 1024 * 1024;

interface Layout {
  label: string;
  meetingsPerBrowser: number;
}

async function measure(layout: Layout, count: number): Promise<void> {
  const { browsers, processes, totalBytes } = await liveMeetingsMemory({
    count,
    tag: 'bnch',
    words: 'so this is what a live meeting costs in memory',
    meetingsPerBrowser: layout.meetingsPerBrowser,
  });
  console.log(
    `${layout.label.padEnd(36)} ${String(count).padStart(2)} meeting(s)  ` +
      `${browsers} browser(s), ${String(processes).padStart(3)} processes  ` +
      `total ${(totalBytes / MB).toFixed(1).padStart(7)} MB  per meeting ${(totalBytes / count / MB).toFixed(1).padStart(6)} MB`,
  );
}

const layouts: Layout[] = [
  { label: 'one browser, a context per meeting', meetingsPerBrowser: 100 },
  { label: 'one browser per meeting', meetingsPerBrowser: 1 },
];
for (const layout of layouts) {
  for (const count of COUNTS) await measure(layout, count);
}
