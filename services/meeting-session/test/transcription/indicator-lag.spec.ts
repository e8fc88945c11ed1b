/**
 * SpeakerLearner under a late indicator: a whole conversation replayed in time order as a meeting
 * reports it. Three people take turns of 0.9-3.4 s, answering quickly (pauses of 0.4-0.7 s: where a
 * late indicator bites, the last speaker still lit when the next one starts) or after a thought
 * (2-3.2 s). Voice
 * activity finds the speech 40 ms after its sound starts and 60 ms before it ends, and says so
 * 60 ms in; the audio arrives in 100 ms chunks; the page is read every 150-600 ms (a busy driver
 * reads unevenly); each tile shows the indicator from its person's sound on, 0-120 ms late, to
 * 300 ms after it, all of that `lag` later (the page painting late, the reading handed over late);
 * a final asks who spoke as it is emitted, its pause confirmed (300 ms after the speech) and the
 * engine's words back (250 ms on). One mixed track (Teams, Zoom), or a track per recent speaker
 * (Meet).
 */
import { expect } from 'chai';
import { SpeakerLearner, type HeardSpeech, type TileLook } from '../../src/transcription/speaker-learner.js';
import { seededRandom } from '../../../../test/simulators/markup.js';

const PEOPLE = ['Alice Example', 'Bob Jones', 'Carol White'];
/** Who speaks, how long (ms of sound), and the pause after: about a minute of a meeting. */
const TURNS: Array<[who: number, soundMs: number, pauseMs: number]> = [
  [0, 2_600, 2_600],
  [1, 1_800, 450],
  [0, 3_400, 3_000],
  [2, 1_200, 400],
  [1, 2_200, 600],
  [2, 900, 2_200],
  [0, 2_800, 500],
  [1, 1_400, 2_800],
  [2, 3_000, 450],
  [0, 1_600, 700],
  [1, 2_400, 400],
  [2, 1_900, 2_400],
  [0, 1_100, 550],
  [1, 3_100, 2_000],
  [2, 2_000, 400],
  [0, 2_500, 3_200],
];
const REST = ['0:c:tile', '0.1:t:mic_off'];
const ASKED_AFTER_MS = 550;
const LIT = [...REST, '0:c:q7Zx'];

interface Said {
  who: number;
  track: string;
  soundFrom: number;
  soundTo: number;
  speech: HeardSpeech;
  litFrom: number;
  litTo: number;
  answer?: string;
}

/** The conversation, replayed into a learner; each turn's answer as its final would have it. */
function replay(lagMs: number, tracks: 'mix' | 'perSpeaker', seed = 7): { learner: SpeakerLearner; said: Said[] } {
  const random = seededRandom(seed);
  const learner = new SpeakerLearner();
  const said: Said[] = [];
  const lru: number[] = [];
  let t = 1_000;
  for (const [who, soundMs, pauseMs] of TURNS) {
    // Meet: a track per recent speaker, three of them, the least recently used one reused.
    if (!lru.includes(who)) lru.push(who);
    const slot = tracks === 'mix' ? 'mix' : `t${lru.indexOf(who) % 3}`;
    const speech = { track: slot, speechFromMs: t + 40, speechToMs: t + soundMs - 60, ended: true };
    const litFrom = t + lagMs + Math.round(random() * 120);
    said.push({
      who,
      track: slot,
      soundFrom: t,
      soundTo: t + soundMs,
      speech,
      litFrom,
      litTo: t + soundMs + 300 + lagMs,
    });
    t += soundMs + pauseMs;
  }
  const end = t + 3_000;
  const tiles = (at: number): TileLook[] =>
    PEOPLE.map((name, i) => ({
      key: `${name}#0`,
      name,
      look: said.some((s) => s.who === i && s.litFrom <= at && at < s.litTo) ? LIT : REST,
    }));
  let nextRead = 0;
  let nextChunk = 100;
  for (let now = 0; now <= end; now += 10) {
    for (const s of said) {
      if (now === s.speech.speechFromMs + 60) learner.heard(s.speech);
      if (now === s.speech.speechToMs + ASKED_AFTER_MS)
        s.answer = learner.speakerOf(s.track, s.speech.speechFromMs, s.speech.speechToMs);
    }
    if (now >= nextChunk) {
      learner.audio(nextChunk);
      nextChunk += 100;
    }
    if (now >= nextRead) {
      learner.looks(tiles(now), now);
      nextRead = now + 150 + Math.round(random() * 450);
    }
  }
  return { learner, said };
}

const wrong = (said: Said[]) =>
  said.filter((s) => s.answer !== PEOPLE[s.who]).map((s) => `${PEOPLE[s.who]} at ${s.soundFrom} named ${s.answer}`);

describe('SpeakerLearner: an indicator that shows late', () => {
  for (const lagMs of [0, 300, 800]) {
    it(`${lagMs} ms late: the lag is found, and every turn is given to its speaker (one mixed track)`, () => {
      const { learner, said } = replay(lagMs, 'mix');
      expect(wrong(said), 'turns given to someone else').to.deep.equal([]);
      // The lag found is the middle of the indicator's own trail after the voice (300 ms here) past the true one.
      expect(learner.lag).to.be.within(lagMs, lagMs + 450);
      expect([...learner.signs()]).to.deep.equal(['0:c:q7Zx']);
    });

    it(`${lagMs} ms late: a track per recent speaker (Meet) too`, () => {
      const { said } = replay(lagMs, 'perSpeaker', 11);
      expect(wrong(said)).to.deep.equal([]);
    });
  }

  it('follows the lag as it grows mid-meeting (a machine that gets busy), from 100 ms to 900 ms', () => {
    const early = replay(100, 'mix', 3);
    const late = replay(900, 'mix', 5);
    // One learner: the first meeting's readings and speech, then the second's, 60 s later.
    const learner = new SpeakerLearner();
    const shift = (s: Said, by: number): Said => ({
      ...s,
      soundFrom: s.soundFrom + by,
      speech: { ...s.speech, speechFromMs: s.speech.speechFromMs + by, speechToMs: s.speech.speechToMs + by },
      litFrom: s.litFrom + by,
      litTo: s.litTo + by,
    });
    const said = [...early.said, ...late.said.map((s) => shift(s, 60_000))];
    for (let now = 0, read = 0; now <= 120_000; now += 10) {
      for (const s of said) {
        if (now === s.speech.speechFromMs + 60) learner.heard(s.speech);
        if (now === s.speech.speechToMs + ASKED_AFTER_MS)
          s.answer = learner.speakerOf('mix', s.speech.speechFromMs, s.speech.speechToMs);
      }
      if (now % 100 === 0) learner.audio(now);
      if (now >= read) {
        const look = (i: number) => (said.some((s) => s.who === i && s.litFrom <= now && now < s.litTo) ? LIT : REST);
        learner.looks(
          PEOPLE.map((name, i) => ({ key: `${name}#0`, name, look: look(i) })),
          now,
        );
        read = now + 250;
      }
    }
    expect(learner.lag).to.be.within(900, 1_250);
    // Once the readings of the quiet machine are behind the estimate's window, every turn is right again.
    const settled = said.filter((s) => s.soundFrom > 60_000 + 20_000);
    expect(settled.length).to.be.greaterThan(8);
    expect(wrong(settled)).to.deep.equal([]);
    expect(wrong(early.said), 'the quiet part').to.deep.equal([]);
  });
});
