/**
 * The measured window of a meeting bench: CPU of the bots' Chromium and of this process (every
 * service), their Chromium's PSS sampled during it, and what the rest of the machine did meanwhile
 * (steal, load, busy cores), from now until `until` (epoch ms).
 */
import os from 'node:os';
import { totalPssBytes } from '../../../services/meeting-session/src/drivers/index.js';
import { chromiumProcesses } from '../../e2e/support/chromium.js';
import { cpuTimes, stealShare } from '../stats.js';
import { delayUntil } from './timed-speech.js';
import { CpuMeter, machineBusyS } from './process-cpu.js';

export interface MeasuredWindow {
  /** Epoch ms. */
  windowFrom: number;
  windowTo: number;
  windowS: number;
  cpuChromiumS: number;
  cpuNodeS: number;
  /** Chromium's PSS, one figure per sample. */
  pssBytes: number[];
  /** The most Chromium processes seen at once. */
  processes: number;
  steal: string;
  load: [number, number];
  /** CPU seconds the whole machine spent over the window (ours included). */
  machineBusyS: number;
}

export async function measureWindow(until: number, sampleMs: number): Promise<MeasuredWindow> {
  const chromium = new CpuMeter(chromiumProcesses());
  const node = new CpuMeter([process.pid]);
  const stealBefore = cpuTimes();
  const busyBefore = machineBusyS();
  const loadBefore = os.loadavg()[0];
  const started = performance.now();
  const windowFrom = Date.now();
  const pssBytes: number[] = [];
  let processes = 0;
  const sample = () => {
    const pids = chromiumProcesses();
    chromium.sample(pids);
    node.sample([process.pid]);
    processes = Math.max(processes, pids.length);
  };
  const sampler = setInterval(() => {
    sample();
    pssBytes.push(totalPssBytes(chromiumProcesses()));
  }, sampleMs);
  await delayUntil(until);
  clearInterval(sampler);
  sample();
  return {
    windowFrom,
    windowTo: Date.now(),
    windowS: (performance.now() - started) / 1000,
    cpuChromiumS: chromium.seconds(),
    cpuNodeS: node.seconds(),
    pssBytes,
    processes,
    steal: stealShare(stealBefore, cpuTimes()),
    load: [loadBefore, os.loadavg()[0]],
    machineBusyS: machineBusyS() - busyBefore,
  };
}
