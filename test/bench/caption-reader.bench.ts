/**
 * What the in-page caption reader costs per caption change, in the page itself: the drivers' own
 * page script observes the simulated caption area while four speakers take turns word by word
 * (four blocks or rows on screen, three people in the call), and every MutationObserver callback
 * (read the captions, compare with the last reading, report) is timed with performance.now().
 * Chromium coarsens performance.now() outside cross-origin isolation, so single callbacks are
 * shown as mean and p99 over hundreds of changes, and the reading alone is also timed in a loop of
 * READS calls on the final screen. Each platform runs on the markup with the fewest wrapper
 * elements around captions and on the one with the most (seeds found by search, see
 * test/simulators/markup.ts), or on the seeds given as arguments.
 * `npx tsx test/bench/caption-reader.bench.ts [seed ...]`
 */
import type { Browser } from 'puppeteer-core';
import {
  growWords,
  MAX_WRAPPERS,
  startSimulator,
  wrappersOf,
  type SimPlatform,
  type Simulator,
} from '../simulators/index.js';
import { PAGES } from '../simulators/pages/platforms.js';
import { enterCall, launchBrowser } from '../../services/meeting-session/test/drivers/call-page.js';
import { percentile } from './stats.js';

const SPEAKERS = ['Alice Example', 'Bob Jones', 'Carol White', 'Dan Brown'];
const TURN = 'we should ship the release on friday once the caption tests pass on every seed we draw today';
const TURNS = 20;
const READS = 2_000;

/** The caption levels of each platform's markup (the tiles and controls do not matter here). */
const CAPTION_LEVELS: Record<Exclude<SimPlatform, 'zoom'>, readonly string[]> = {
  google_meet: PAGES.google_meet.levels.slice(0, 7),
  teams: PAGES.teams.levels.slice(0, 8),
};

/** Times every MutationObserver callback of the page; installed before the page's own scripts. */
const TIMING_SHIM = `(() => {
  const Native = window.MutationObserver;
  const bench = { samples: [], callbacks: [] };
  window.__readerBench = bench;
  window.MutationObserver = class extends Native {
    constructor(callback) {
      super((records, observer) => {
        const start = performance.now();
        callback(records, observer);
        bench.samples.push(performance.now() - start);
      });
      bench.callbacks.push(callback);
    }
  };
})();`;

/** The first seeds whose caption levels all have the fewest and the most wrappers. */
function extremeSeeds(platform: Exclude<SimPlatform, 'zoom'>): number[] {
  const found: number[] = [];
  for (const target of [0, MAX_WRAPPERS]) {
    let seed = 0;
    while (!CAPTION_LEVELS[platform].every((level) => wrappersOf(platform, seed)[level] === target)) seed++;
    found.push(seed);
  }
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const us = (ms: number) => `${(ms * 1000).toFixed(0).padStart(5)} µs`;

async function measure(
  browser: Browser,
  sim: Simulator,
  platform: Exclude<SimPlatform, 'zoom'>,
  seed: number,
): Promise<void> {
  const id =
    platform === 'google_meet'
      ? `rdr-${'abcdefghijklmnopqrstuvwxyz'[seed % 26]}nch-mrk`
      : `19:meeting_reader${seed}@thread.v2`;
  const meeting = sim.meeting(id, { lobby: false, markupSeed: seed, maxBlocks: 4, visibleRows: 4 });
  for (const name of SPEAKERS.slice(0, 3)) meeting.join(name);
  const page = await browser.newPage();
  try {
    await page.evaluateOnNewDocument(TIMING_SHIM);
    const call = await enterCall(page, platform, sim, id);
    await page.evaluate('window.__readerBench.samples.length = 0');
    let changes = 0;
    for (let turn = 0; turn < TURNS; turn++) {
      const caption = meeting.caption(SPEAKERS[turn % SPEAKERS.length]);
      for (const step of growWords(TURN)) {
        const before = call.reports.length;
        caption.show(step);
        changes++;
        for (let waited = 0; call.reports.length === before && waited < 100; waited++) await sleep(1);
      }
    }
    const samples = ((await page.evaluate('window.__readerBench.samples')) as number[]).sort((a, b) => a - b);
    const loop = (await page.evaluate(`(() => {
      const read = window.__readerBench.callbacks[0];
      const start = performance.now();
      for (let i = 0; i < ${READS}; i++) read([], null);
      return (performance.now() - start) / ${READS};
    })()`)) as number;
    const last = call.reports.at(-1) ?? [];
    const shown = meeting.truth().segments.slice(-4);
    const correct =
      last.length === shown.length &&
      last.every((item, i) => item.speaker === shown[i].speaker && item.text === shown[i].text);
    const mean = samples.reduce((sum, x) => sum + x, 0) / Math.max(1, samples.length);
    const depth = CAPTION_LEVELS[platform].map((level) => wrappersOf(platform, seed)[level]).join('');
    console.log(
      `${platform.padEnd(12)} seed ${String(seed).padStart(10)} wrappers ${depth}  ${changes} changes, ` +
        `${samples.length} callbacks: mean ${us(mean)}, p50 ${us(percentile(samples, 50))}, ` +
        `p99 ${us(percentile(samples, 99))}; one reading ${us(loop)}; ${correct ? 'reads the captions' : 'READS WRONG'}`,
    );
  } finally {
    await page.close();
  }
}

const given = process.argv.slice(2).map(Number);
const sim = await startSimulator();
const browser = await launchBrowser(sim);
try {
  console.log(
    `wrappers: per caption level (${CAPTION_LEVELS.google_meet.join(', ')} | ${CAPTION_LEVELS.teams.join(', ')})`,
  );
  for (const platform of ['google_meet', 'teams'] as const) {
    for (const seed of given.length ? given : extremeSeeds(platform)) await measure(browser, sim, platform, seed);
  }
} finally {
  await browser.close();
  await sim.close();
}
