/** When a live bot counts as blind: the caption area keeps changing and nothing can be read. */
import { expect } from 'chai';
import { CaptionHealth, withoutNames } from '../../src/drivers/caption-health.js';

describe('caption health', () => {
  const reading = (now: number, areaChanges: number, textRead = false, captionsOn = true) => ({
    now,
    captionsOn,
    areaChanges,
    textRead,
  });

  it('stays quiet through a silent meeting, however long: the caption area does not change', () => {
    const health = new CaptionHealth(20_000);
    for (let t = 0; t <= 120_000; t += 250) expect(health.observe(reading(t, 2))).to.deep.equal([]);
  });

  it('raises captions_unreadable when the area keeps changing with no text for the set time, and clears on text', () => {
    const health = new CaptionHealth(20_000);
    expect(health.observe(reading(0, 0))).to.deep.equal([]);
    expect(health.observe(reading(19_999, 50))).to.deep.equal([]);
    const [raised] = health.observe(reading(20_000, 51));
    expect(raised).to.deep.include({ warning: 'captions_unreadable', raised: true });
    expect(raised.seen).to.equal('the caption area changed 51 times in 20 s and no caption text could be read');
    expect(health.warnings).to.deep.equal(['captions_unreadable']);
    expect(health.observe(reading(25_000, 90))).to.deep.equal([]); // one episode, one warning
    expect(health.observe(reading(26_000, 91, true))).to.deep.equal([
      { warning: 'captions_unreadable', raised: false, seen: '' },
    ]);
    expect(health.warnings).to.deep.equal([]);
  });

  it('raises captions_unavailable while captions stay off for the set time, and clears once they are on', () => {
    const health = new CaptionHealth(5_000);
    expect(health.observe(reading(0, 0, false, false))).to.deep.equal([]);
    const [raised] = health.observe(reading(5_000, 0, false, false));
    expect(raised).to.deep.include({ warning: 'captions_unavailable', raised: true });
    expect(health.observe(reading(6_000, 0, false, true))).to.deep.equal([
      { warning: 'captions_unavailable', raised: false, seen: '' },
    ]);
  });

  it('takes known names out of a snapshot', () => {
    const nodes = [
      { depth: 1, tag: 'img', attrs: { 'aria-label': 'Alice Example is speaking', role: 'img' }, children: 0 },
    ];
    expect(withoutNames(nodes, ['Alice Example', 'Notetaker'])[0].attrs).to.deep.equal({
      'aria-label': '[name] is speaking',
      role: 'img',
    });
  });
});
