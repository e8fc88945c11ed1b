/**
 * A mocha root hook: a failing test that loaded simulated Meet, Teams or Zoom pages gets the seeds their
 * markup was drawn from appended to its message, so `SIM_SEED=<seed>` replays the very markup that
 * failed (see test/simulators/markup.ts). Tests that load no simulated page are left alone.
 */
import type { Context } from 'mocha';
import { seedsDrawn } from '../simulators/markup.js';

let before = 0;

export const mochaHooks = {
  beforeEach(): void {
    before = seedsDrawn().length;
  },
  afterEach(this: Context): void {
    const test = this.currentTest;
    const seeds = [...new Set(seedsDrawn().slice(before))];
    if (test?.state !== 'failed' || !test.err || seeds.length === 0) return;
    test.err.message += `\n      simulated markup seeds of this test: ${seeds.join(', ')} (replay one with SIM_SEED=<seed>)`;
  },
};
