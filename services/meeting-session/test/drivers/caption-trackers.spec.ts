import { expect } from 'chai';
import type { CaptionEmitter } from '../../src/drivers/caption-source.js';
import { MeetCaptionTracker } from '../../src/drivers/meet-captions.js';
import { TeamsCaptionTracker } from '../../src/drivers/teams-captions.js';
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

const T0 = Date.parse('2025-01-01T10:00:00.000Z');

describe('Google Meet caption tracker', () => {
  const IDLE = 1500;
  const block = (key: number, speaker: string, text: string) => ({ key, speaker, text });

  it('reports every change and finalises after the idle time, stamped with the start of the turn', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'We')], T0);
    t.update([block(1, 'Alice', 'We should')], T0 + 100);
    t.update([block(1, 'Alice', 'We should')], T0 + 200);
    t.update([block(1, 'Alice', 'We should ship.')], T0 + 300);
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

  it('takes corrections and re-punctuation as the new text of the turn', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    for (const [i, text] of [
      'i think their',
      'i think their going',
      'I think they’re going',
      'I think they’re going home.',
    ].entries()) {
      t.update([block(1, 'Alice', text)], T0 + i * 100);
    }
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: I think they’re going home.']);
  });

  it('keeps the words Meet drops from the start of a long turn', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Bo', 'one two three four five six')], T0);
    t.update([block(1, 'Bo', 'four five six seven')], T0 + 100);
    t.update([block(1, 'Bo', 'Six, seven eight')], T0 + 200);
    t.update([block(1, 'Bo', 'eight nine ten.')], T0 + 300);
    t.flush();
    expect(r.partials.map((p) => p.text)).to.deep.equal([
      'one two three four five six',
      'one two three four five six seven',
      'one two three four five Six, seven eight',
      'one two three four five Six, seven eight nine ten.',
    ]);
    expect(r.texts()).to.deep.equal(['Bo: one two three four five Six, seven eight nine ten.']);
  });

  it('keeps dropped words when the overlap itself was corrected', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Bo', 'alpha beta gamma delta epsilon zeta')], T0);
    t.update([block(1, 'Bo', 'gamma delta epsilon zed eta')], T0 + 100);
    t.flush();
    expect(r.texts()).to.deep.equal(['Bo: alpha beta gamma delta epsilon zed eta']);
  });

  it('follows a shrink at the end of the text and the growth after it', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Al', "Let's meet on Tuesday at")], T0);
    t.update([block(1, 'Al', "Let's meet on")], T0 + 100);
    t.update([block(1, 'Al', "Let's meet on Thursday at noon.")], T0 + 200);
    t.flush();
    expect(r.texts()).to.deep.equal(["Al: Let's meet on Thursday at noon."]);
  });

  it('finalises the turn in progress when someone else starts speaking, before their first partial', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'Hello')], T0);
    t.update([block(1, 'Alice', 'Hello there')], T0 + 100);
    t.update([block(1, 'Alice', 'Hello there'), block(2, 'Bob', 'Hi')], T0 + 200);
    expect(r.events).to.deep.equal([
      'partial Alice: Hello',
      'partial Alice: Hello there',
      'final Alice: Hello there',
      'partial Bob: Hi',
    ]);
  });

  it('finalises a turn whose block goes away', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'First'), block(2, 'Bob', 'Second')], T0);
    t.update([block(2, 'Bob', 'Second one')], T0 + 100);
    expect(r.texts()).to.deep.equal(['Alice: First']);
  });

  it('never finalises the same words twice when a finalised turn grows again', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
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
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'ok so')], T0);
    t.tick(T0 + 1600);
    t.update([block(1, 'Alice', 'OK, so.')], T0 + 1700);
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: ok so']);
  });

  it('makes a split turn two segments of the same speaker, the older one final once it stops', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
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
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'Hello everyone')], T0);
    t.update([block(7, 'Alice', 'Hello everyone')], T0 + 100);
    t.update([block(7, 'Alice', 'Hello everyone, welcome')], T0 + 200);
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: Hello everyone', 'Alice: welcome']);
  });

  it('flushes every turn in progress in screen order', () => {
    const r = recorder();
    const t = new MeetCaptionTracker(r.emitter, IDLE);
    t.update([block(1, 'Alice', 'one'), block(2, 'Alice', 'two')], T0);
    t.flush();
    t.flush();
    expect(r.texts()).to.deep.equal(['Alice: one', 'Alice: two']);
  });
});

describe('Teams caption tracker', () => {
  const IDLE = 900;
  const row = (speaker: string, text: string) => ({ speaker, text });

  it('finalises a row unchanged for the idle time', () => {
    const r = recorder();
    const t = new TeamsCaptionTracker(r.emitter, IDLE);
    t.update([row('Ann', 'Good')], T0);
    t.update([row('Ann', 'Good morning')], T0 + 100);
    t.tick(T0 + 999);
    expect(r.finals).to.have.length(0);
    t.tick(T0 + 1000);
    expect(r.texts()).to.deep.equal(['Ann: Good morning']);
    expect(r.finals[0].timestamp).to.equal(new Date(T0).toISOString());
  });

  it('finalises rows as the recycled list replaces them, each exactly once', () => {
    const r = recorder();
    const t = new TeamsCaptionTracker(r.emitter, IDLE);
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
    say('Ann', 'one');
    say('Ben', 'two two');
    say('Ann', 'three three three');
    say('Ann', 'four');
    say('Ben', 'five five');
    expect(r.texts()).to.deep.equal(['Ann: one', 'Ben: two two']);
    t.flush();
    expect(r.texts()).to.deep.equal([
      'Ann: one',
      'Ben: two two',
      'Ann: three three three',
      'Ann: four',
      'Ben: five five',
    ]);
  });

  it('keeps rows apart when the row being recognised is rewritten entirely', () => {
    const r = recorder();
    const t = new TeamsCaptionTracker(r.emitter, IDLE);
    t.update([row('Ann', 'Okay.'), row('Ben', 'Hello')], T0);
    t.update([row('Ann', 'Okay.'), row('Ben', 'Hi, Lowell.')], T0 + 100);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: Okay.', 'Ben: Hi, Lowell.']);
  });

  it('does not take a re-punctuated final row for new words', () => {
    const r = recorder();
    const t = new TeamsCaptionTracker(r.emitter, IDLE);
    t.update([row('Ann', 'how are you')], T0);
    t.tick(T0 + 1000);
    t.update([row('Ann', 'How are you?')], T0 + 1100);
    t.update([row('Ann', 'How are you?'), row('Ben', 'Fine')], T0 + 1200);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: how are you', 'Ben: Fine']);
  });

  it('tells apart consecutive rows of one speaker with the same start', () => {
    const r = recorder();
    const t = new TeamsCaptionTracker(r.emitter, IDLE);
    t.update([row('Ann', 'Yes.')], T0);
    t.update([row('Ann', 'Yes.'), row('Ann', 'Yes, I agree.')], T0 + 100);
    t.update([row('Ann', 'Yes, I agree.'), row('Ben', 'Good')], T0 + 200);
    t.flush();
    expect(r.texts()).to.deep.equal(['Ann: Yes.', 'Ann: Yes, I agree.', 'Ben: Good']);
  });
});
