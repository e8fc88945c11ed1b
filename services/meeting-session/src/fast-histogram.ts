/**
 * A Prometheus histogram without labels, for hot paths: `observe` walks the bucket bounds and adds
 * three numbers. prom-client's own observe validates and hashes labels and makes a closure on
 * every call, a few microseconds that showed at 20,000 observations a second. It registers on a
 * prom-client registry like any of its metrics and reads out the same way.
 */
import type client from 'prom-client';

export interface FastHistogramOptions {
  name: string;
  help: string;
  /** Upper bounds, ascending; `+Inf` is added. */
  buckets: number[];
  registers: client.Registry[];
}

export class FastHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  private readonly bounds: number[];
  /** Observations per bucket (not cumulative); the last one is above every bound. */
  private counts: Float64Array;
  private sum = 0;

  constructor(options: FastHistogramOptions) {
    this.name = options.name;
    this.help = options.help;
    this.bounds = [...options.buckets];
    this.counts = new Float64Array(this.bounds.length + 1);
    for (const registry of options.registers) registry.registerMetric(this as unknown as client.Metric);
  }

  observe(value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]) bucket++;
    this.counts[bucket]++;
    this.sum += value;
  }

  /** What prom-client's registry reads: cumulative buckets, then sum and count. */
  async get() {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += this.counts[i];
      values.push({ metricName: `${this.name}_bucket`, labels: { le }, value: cumulative });
    });
    const count = cumulative + this.counts[this.bounds.length];
    values.push({ metricName: `${this.name}_bucket`, labels: { le: '+Inf' }, value: count });
    values.push({ metricName: `${this.name}_sum`, labels: {}, value: this.sum });
    values.push({ metricName: `${this.name}_count`, labels: {}, value: count });
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.counts = new Float64Array(this.bounds.length + 1);
    this.sum = 0;
  }
}
