import { expect } from 'chai';
import type { CaptionEmitter } from '../../src/drivers/caption-source.js';
import { MeetCaptionTracker } from '../../src/drivers/google-meet/captions.js';
import { TeamsCaptionTracker } from '../../src/drivers/teams/captions.js';
import type { CaptionUpdate, FinalSegment } from '../../src/drivers/driver.js';

/** Collects what a tracker emits; time is whatever number the test passes. */
function recorder() {
  const partials: CaptionUpdate[] = [];
  const finals: FinalSegment[] = [];
  const events: string[] = [];
  let n = 0;
  const emitter: CaptionEmitter = {
    partial: (u) => {
      partials.push(u);
      events.push(`partial ${u.speaker}: ${u.text}`);
    },
    final: (s) => {
      finals.push(s);
      events.push(`final ${s.speaker}: ${s.text}`);
    },
    newId: () => `c${++n}`,
  };
  return { emitter, partials, finals, events, texts: () => finals.map((f) => `${f.speaker}: ${f.text}`) };
}

/** A tracker `make` builds, `t`, and `r`, the recorder of what it emits. */
function recorded<T>(make: (emitter: CaptionEmitter) => T) {
  const r = recorder();
  return { r, t: make(r.emitter) };
}

const T0 = Date.parse('2025-01-01T10:00:00.000Z');

/** Shows a tracker each screen 100 ms after the one before, the first at T0. */
function show<S>(tracker: { update(screen: S[], now: number): void }, screens: S[][]) {
  screens.forEach((screen, i) => tracker.update(screen, T0 + i * 100));
}

describe('Google Meet caption tracker', () => {
  const IDLE = 1500;
  const tracker = () => recorded((emitter) => new MeetCaptionTracker(emitter, IDLE));
  const block = (key: number, speaker: string, text: string) => ({ key, speaker, text });

  it('reports every change and finalises after the idle time, stamped with the start of the turn', () => {
    const { r, t } = tracker();
    show(
      t,
      ['We', 'We should', 'We should', 'We should ship.'].map((text) => [block(1, 'Alice', text)]),
    );
    t.tick(T0 + 1700);
    expect(r.finals).to.deep.equal([]);
    t.tick(T0 + 1800);
    expect(r.partials.map((p) => p.text)).to.deep.equal(['We', 'We should', 'We should ship.']);
    expect(new Set(r.partials.map((p) => p.captionId)).size).to.equal(1);
    expect(r.finals).to.deep.equal([
      { speaker: 'Alice', text: 'We should ship.', timestamp: '2025-01-01T10:00:00.000Z' },
    ]);
    t.tick(T0 + 5000);
    t.flush();
    expect(r.finals).to.have.length(1);
  });

  it('keeps the words Meet drops from the start of a long turn', () => {
    const { r, t } = tracker();
    show(
      t,
      ['one two three four five six', 'four five six seven', 'Six, seven eight', 'eight nine ten.'].map((text) => [
        block(1, 'Bo', text),
      ]),
    );
    t.flush();
    expect(r.partials.map((p) => p.text)).to.deep.equal([
      'one two three four five six',
      'one two three four five six seven',
      'one two three four five Six, seven eight',
      'one two three four five Six, seven eight nine ten.',
    ]);
    expect(r.texts()).to.deep.equal(['Bo: one two three four five Six, seven eight nine ten.']);
  });

  it('finalises the turn in progress when someone else starts speaking, before their first partial', () => {
    const { r, t } = tracker();
    show(t, [
      [block(1, 'Alice', 'Hello')],
      [block(1, 'Alice', 'Hello there')],
      [block(1, 'Alice', 'Hello there'), block(2, 'Bob', 'Hi')],
    ]);
    expect(r.events).to.deep.equal([
      'partial Alice: Hello',
      'partial Alice: Hello there',
      'final Alice: Hello there',
      'partial Bob: Hi',
    ]);
  });

  it('finalises a turn whose block goes away', () => {
    const { r, t } = tracker();
    show(t, [[block(1, 'Alice', 'First'), block(2, 'Bob', 'Second')], [block(2, 'Bob', 'Second one')]]);
    expect(r.texts()).to.deep.equal(['Alice: First']);
  });

  it('never finalises the same words twice when a finalised turn grows again', () => {
    const { r, t } = tracker();
    t.update([block(1, 'Alice', 'So the plan')], T0);
    t.tick(T0 + 2000);
    t.update([block(1, 'Alice', 'So the plan is')], T0 + 2100);
    t.update([block(1, 'Alice', 'So, the plan is to ship.')], T0 + 2200);
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: So the plan', 'Alice: is to ship.']);
    expect(r.partials.at(-1)?.captionId).to.not.equal(r.partials[0].captionId);
    expect(r.finals[1].timestamp).to.equal(new Date(T0 + 2100).toISOString());
  });

  it('ignores re-punctuation of words that are already final', () => {
    const { r, t } = tracker();
    t.update([block(1, 'Alice', 'ok so')], T0);
    t.tick(T0 + 1600);
    t.update([block(1, 'Alice', 'OK, so.')], T0 + 1700);
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: ok so']);
  });

  it('makes a split turn two segments of the same speaker, the older one final once it stops', () => {
    const { r, t } = tracker();
    t.update([block(1, 'Alice', 'This is a long turn and then we')], T0);
    // Meet moves the tail into a new block of the same speaker.
    t.update([block(1, 'Alice', 'This is a long turn and then'), block(2, 'Alice', 'we')], T0 + 100);
    t.update([block(1, 'Alice', 'This is a long turn and then'), block(2, 'Alice', 'we went home')], T0 + 1000);
    expect(r.finals).to.deep.equal([]);
    t.tick(T0 + 1600);
    t.update(
      [block(1, 'Alice', 'This is a long turn and then'), block(2, 'Alice', 'we went home.'), block(3, 'Bob', 'Nice')],
      T0 + 1700,
    );
    expect(r.texts()).to.deep.equal(['Alice: This is a long turn and then', 'Alice: we went home.']);
  });

  it('does not report a block again when Meet re-renders the captions', () => {
    const { r, t } = tracker();
    show(t, [
      [block(1, 'Alice', 'Hello everyone')],
      [block(7, 'Alice', 'Hello everyone')],
      [block(7, 'Alice', 'Hello everyone, welcome')],
    ]);
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: Hello everyone', 'Alice: welcome']);
  });

  it('flushes every turn in progress in screen order', () => {
    const { r, t } = tracker();
    t.update([block(1, 'Alice', 'one'), block(2, 'Alice', 'two')], T0);
    t.flush();
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: one', 'Alice: two']);
  });

  /** One speaker's block showing these texts 100 ms apart, then a flush: the one segment finalised. */
  const oneTurn: Array<{ name: string; shown: string[]; final: string }> = [
    {
      name: 'takes corrections and re-punctuation as the new text of the turn',
      shown: ['i think their', 'i think their going', 'I think they’re going', 'I think they’re going home.'],
      final: 'I think they’re going home.',
    },
    {
      name: 'keeps dropped words when the overlap itself was corrected',
      shown: ['alpha beta gamma delta epsilon zeta', 'gamma delta epsilon zed eta'],
      final: 'alpha beta gamma delta epsilon zed eta',
    },
    {
      name: 'follows a shrink at the end of the text and the growth after it',
      shown: ["Let's meet on Tuesday at", "Let's meet on", "Let's meet on Thursday at noon."],
      final: "Let's meet on Thursday at noon.",
    },
  ];
  for (const { name, shown, final } of oneTurn) {
    it(name, () => {
      const { r, t } = tracker();
      show(
        t,
        shown.map((text) => [block(1, 'Alice', text)]),
      );
      t.flush();
      expect(r.texts()).to.deep.equal([`Alice: ${final}`]);
    });
  }
});

describe('Teams caption tracker', () => {
  const IDLE = 900;
  const tracker = () => recorded((emitter) => new TeamsCaptionTracker(emitter, IDLE));
  const row = (speaker: string, text: string) => ({ speaker, text });

  it('finalises a row unchanged for the idle time', () => {
    const { r, t } = tracker();
    show(t, [[row('Ann', 'Good')], [row('Ann', 'Good morning')]]);
    t.tick(T0 + 999);
    expect(r.finals).to.have.length(0);
    t.tick(T0 + 1000);
    expect(r.texts()).to.deep.equal(['Ann: Good morning']);
    expect(r.finals[0].timestamp).to.equal(new Date(T0).toISOString());
  });

  it('finalises rows as the recycled list replaces them, each exactly once', () => {
    const { r, t } = tracker();
    const history: Array<{ speaker: string; text: string }> = [];
    let now = T0;
    const say = (speaker: string, text: string) => {
      history.push({ speaker, text: '' });
      for (const word of text.split(' ')) {
        history.at(-1)!.text = `${history.at(-1)!.text} ${word}`.trim();
        t.update(
          history.slice(-3).map((h) => ({ ...h })),
          (now += 50),
        );
      }
    };
    const said = [
      ['Ann', 'one'],
      ['Ben', 'two two'],
      ['Ann', 'three three three'],
      ['Ann', 'four'],
      ['Ben', 'five five'],
    ];
    for (const [speaker, text] of said) say(speaker, text);
    expect(r.texts()).to.deep.equal(['Ann: one', 'Ben: two two']);
    t.flush();
    expect(r.texts()).to.deep.equal(said.map(([speaker, text]) => `${speaker}: ${text}`));
  });

  it('keeps rows apart when the row being recognised is rewritten entirely', () => {
    const { r, t } = tracker();
    show(t, [
      [row('Ann', 'Okay.'), row('Ben', 'Hello')],
      [row('Ann', 'Okay.'), row('Ben', 'Hi, Lowell.')],
    ]);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: Okay.', 'Ben: Hi, Lowell.']);
  });

  it('does not take a re-punctuated final row for new words', () => {
    const { r, t } = tracker();
    t.update([row('Ann', 'how are you')], T0);
    t.tick(T0 + 1000);
    t.update([row('Ann', 'How are you?')], T0 + 1100);
    t.update([row('Ann', 'How are you?'), row('Ben', 'Fine')], T0 + 1200);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: how are you', 'Ben: Fine']);
  });

  it('tells apart consecutive rows of one speaker with the same start', () => {
    const { r, t } = tracker();
    show(t, [
      [row('Ann', 'Yes.')],
      [row('Ann', 'Yes.'), row('Ann', 'Yes, I agree.')],
      [row('Ann', 'Yes, I agree.'), row('Ben', 'Good')],
    ]);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: Yes.', 'Ann: Yes, I agree.', 'Ben: Good']);
  });
});
