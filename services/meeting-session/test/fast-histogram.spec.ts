/** FastHistogram reads out exactly as prom-client's Histogram fed the same observations. */
import { expect } from 'chai';
import client from 'prom-client';
import { FastHistogram } from '../src/fast-histogram.js';

describe('FastHistogram', () => {
  const buckets = [0.0005, 0.001, 0.005, 0.01, 0.5];
  const observations = [0.0001, 0.0005, 0.0007, 0.003, 0.003, 0.02, 0.7, 12, 0];

  it('exposes the same text as a prom-client Histogram of the same observations', async () => {
    const theirs = new client.Registry();
    const ours = new client.Registry();
    for (const registry of [theirs, ours]) registry.setDefaultLabels({ service: 'test' });
    const reference = new client.Histogram({ name: 'x_seconds', help: 'Help text', buckets, registers: [theirs] });
    const fast = new FastHistogram({ name: 'x_seconds', help: 'Help text', buckets, registers: [ours] });
    for (const value of observations) {
      reference.observe(value);
      fast.observe(value);
    }
    const text = await ours.metrics();
    expect(text).to.equal(await theirs.metrics());
    expect(text).to.include('x_seconds_bucket{le="0.005",service="test"} 6');
    expect(text).to.include('x_seconds_count{service="test"} 9');
  });

  it('starts from zero again after a reset', async () => {
    const registry = new client.Registry();
    const fast = new FastHistogram({ name: 'y_seconds', help: 'h', buckets, registers: [registry] });
    fast.observe(1);
    registry.resetMetrics();
    expect(await registry.metrics()).to.include('y_seconds_count 0');
  });
});
