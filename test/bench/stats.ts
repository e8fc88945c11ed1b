import { readFileSync } from 'node:fs';
/** Small helpers every benchmark prints with: percentiles and a fixed figure format. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

export const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
export const median = (values: number[]) => percentile(sorted(values), 50);
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
export const fmt = (value: number, digits = 1, width = 7) =>
  (Number.isFinite(value) ? value.toFixed(digits) : 'n/a').padStart(width);

/** `label  p50 … p99 … max … (n)`, the latency rows of the meeting benches. */
export function latencyRow(label: string, values: number[], unit = 'ms', digits = 0): string {
  const s = sorted(values);
  return `${label.padEnd(58)} p50 ${fmt(percentile(s, 50), digits)} ${unit}  p99 ${fmt(percentile(s, 99), digits)} ${unit}  max ${fmt(s.at(-1) ?? NaN, digits)} ${unit}  (${s.length})`;
}

export interface LatencySummary {
  count: number;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Latencies in ms, wall time in ms. */
export function summarize(latencies: number[], wallMs: number): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    count: sorted.length,
    perSecond: (sorted.length / wallMs) * 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

export function formatRow(label: string, s: LatencySummary, extra = ''): string {
  return `${label.padEnd(44)} ${s.perSecond.toFixed(0).padStart(8)}/s  p50 ${s.p50.toFixed(3)} ms  p99 ${s.p99.toFixed(3)} ms${extra}`;
}

/**
 * Runs `op` `total` times with `window` in flight, pushing each one's latency in ms onto
 * `latencies`; returns the wall time in ms.
 */
export async function timeWindowed(
  total: number,
  window: number,
  op: () => Promise<unknown>,
  latencies: number[],
): Promise<number> {
  let issued = 0;
  const started = performance.now();
  const worker = async () => {
    while (issued < total) {
      issued++;
      const t0 = performance.now();
      await op();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: window }, worker));
  return performance.now() - started;
}

/** Runs `op` `total` times with `window` in flight; returns per-op latencies in ms and wall time. */
export async function runWindowed(total: number, window: number, op: () => Promise<unknown>): Promise<LatencySummary> {
  const latencies: number[] = [];
  const wallMs = await timeWindowed(total, window, op, latencies);
  return summarize(latencies, wallMs);
}

/**
 * CPU time the hypervisor gave to other guests while this machine wanted it ("steal" in
 * /proc/stat), as a share of all CPU time between two readings: on a shared virtual machine a
 * millisecond-level latency figure means little without it. Null where /proc/stat is missing.
 */
export function cpuTimes(): { steal: number; total: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

export function stealShare(before: ReturnType<typeof cpuTimes>, after: ReturnType<typeof cpuTimes>): string {
  if (!before || !after || after.total === before.total) return 'steal n/a';
  return `steal ${((100 * (after.steal - before.steal)) / (after.total - before.total)).toFixed(0)}%`;
}
