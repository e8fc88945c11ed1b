/**
 * SpeakerLearner: who speaks, learned from the tiles' looks while the tracks carry voice. Each
 * meeting here is scripted the way a page and the audio report it: the tiles read every 250 ms as
 * the driver reads them, speech as voice activity finds it, audio heard up to the end.
 */
import { expect } from 'chai';
import { SpeakerLearner, type HeardSpeech, type TileLook } from '../../src/transcription/speaker-learner.js';
import { UNKNOWN_SPEAKER } from '../../src/transcription/speaker-timeline.js';

const ALICE = 'Alice Example';
const BOB = 'Bob Jones';
/** What every tile of this build draws, silent: a class of its own and the mic icon. */
const REST = ['0:c:tile', '0.1:t:mic_off'];

/** The driver's poll. */
const READ_EVERY_MS = 250;

/** A meeting's page and audio, scripted: tiles' looks from a time on (read every 250 ms), and speech on tracks. */
class Script {
  readonly learner = new SpeakerLearner();
  private readonly changes: Array<{ at: number; key: string; tile: TileLook | null }> = [];
  private readAt = 0;

  look(at: number, key: string, name: string, look: string[]): this {
    this.changes.push({ at, key, tile: { key, name, look } });
    return this;
  }

  leave(at: number, key: string): this {
    this.changes.push({ at, key, tile: null });
    return this;
  }

  /** The page read, as the driver reads it, up to `until`. */
  private read(until: number): void {
    for (; this.readAt <= until; this.readAt += READ_EVERY_MS) {
      const tiles = new Map<string, TileLook>();
      for (const { at, key, tile } of [...this.changes].sort((a, b) => a.at - b.at)) {
        if (at > this.readAt) break;
        if (tile) tiles.set(key, tile);
        else tiles.delete(key);
      }
      this.learner.looks([...tiles.values()], this.readAt);
    }
  }

  /** Speech on `track` from `from` to `to`, with the page's indicator on `key` (lit look) from `from` to `to` + 300 ms. */
  speak(track: string, from: number, to: number, lit?: { key: string; name: string; look: string[] }): HeardSpeech {
    const speech = { track, speechFromMs: from, speechToMs: to, ended: true };
    this.learner.heard(speech);
    if (lit) {
      this.look(from + 80, lit.key, lit.name, lit.look);
      this.look(to + 300, lit.key, lit.name, REST);
    }
    return speech;
  }

  heardUntil(at: number): this {
    this.read(at);
    this.learner.audio(at);
    return this;
  }
}

/** Alice and Bob in the call, silent from 0. */
const meeting = () => new Script().look(0, 'a', ALICE, REST).look(0, 'b', BOB, REST);

describe('SpeakerLearner: speakers from what the tiles show while there is voice', () => {
  it('learns a build whose indicator is a class nobody knows, and names each speaker by it', () => {
    const m = meeting();
    const lit = [...REST, '0:c:q7Zx'];
    m.speak('mix', 2_000, 4_000, { key: 'a', name: ALICE, look: lit });
    m.speak('mix', 6_000, 7_500, { key: 'b', name: BOB, look: lit });
    m.heardUntil(10_000);
    expect([...m.learner.signs()]).to.deep.equal(['0:c:q7Zx']);
    expect(m.learner.speakerOf('mix', 2_000, 4_000)).to.equal(ALICE);
    expect(m.learner.speakerOf('mix', 6_000, 7_500)).to.equal(BOB);
  });

  it('learns a change of drawn style or icon (a shadow, an equalizer) as well as a class', () => {
    const m = meeting();
    const lit = ['0:c:tile', '0:s:rgb(26, 115, 232) 0px 0px 0px 3px', '0.1:t:graphic_eq'];
    m.speak('mix', 2_000, 3_500, { key: 'b', name: BOB, look: lit });
    m.speak('mix', 5_000, 6_500, { key: 'a', name: ALICE, look: lit });
    m.heardUntil(9_000);
    expect([...m.learner.signs()].sort()).to.deep.equal(['0.1:t:graphic_eq', '0:s:rgb(26, 115, 232) 0px 0px 0px 3px']);
    expect(m.learner.speakerOf('mix', 5_000, 6_500)).to.equal(ALICE);
  });

  it('takes a moving indicator (bars whose heights change every reading) by its motion, not its values', () => {
    const m = meeting();
    m.learner.heard({ track: 'mix', speechFromMs: 2_000, speechToMs: 4_000, ended: true });
    for (let t = 2_050, i = 0; t < 4_300; t += 250, i++)
      m.look(t, 'a', ALICE, [...REST, `0.2:h:${3 + (i % 4)}px`, '0.2:~']);
    m.look(4_300, 'a', ALICE, [...REST, '0.2:h:3px']);
    m.heardUntil(7_000);
    expect([...m.learner.signs()]).to.include('0.2:~');
    expect(m.learner.speakerOf('mix', 2_000, 4_000)).to.equal(ALICE);
  });

  it('is not fooled by a tile that changes in silence too (video on and off), even during speech', () => {
    const m = meeting();
    const lit = [...REST, '0:c:q7Zx'];
    m.look(500, 'b', BOB, [...REST, '0.3:c:video']);
    m.look(1_500, 'b', BOB, REST);
    m.speak('mix', 2_000, 4_000, { key: 'a', name: ALICE, look: lit });
    m.look(8_000, 'b', BOB, [...REST, '0.3:c:video']);
    m.speak('mix', 9_000, 10_500, { key: 'a', name: ALICE, look: lit });
    m.heardUntil(13_000);
    expect(m.learner.signs().has('0.3:c:video')).to.equal(false);
    expect(m.learner.speakerOf('mix', 9_000, 10_500)).to.equal(ALICE);
  });

  it('names the tile that changed before anything is learned (the first words of a meeting)', () => {
    const m = meeting();
    m.speak('mix', 300, 2_000, { key: 'b', name: BOB, look: [...REST, '0:c:q7Zx'] });
    m.heardUntil(2_200);
    expect(m.learner.signs().size).to.equal(0);
    expect(m.learner.speakerOf('mix', 300, 2_000)).to.equal(BOB);
  });

  it('says Unknown only when no tile changed during the speech', () => {
    const m = meeting();
    m.speak('mix', 2_000, 4_000, { key: 'a', name: ALICE, look: [...REST, '0:c:q7Zx'] });
    m.speak('mix', 6_000, 7_000);
    m.heardUntil(9_000);
    expect(m.learner.speakerOf('mix', 6_000, 7_000)).to.equal(UNKNOWN_SPEAKER);
    expect(m.learner.speakerOf('mix', 2_000, 4_000)).to.equal(ALICE);
  });

  it('names a person shown twice (their tile and their presentation) once', () => {
    const m = meeting().look(0, 'a2', ALICE, ['0:c:presentation']);
    const lit = [...REST, '0:c:q7Zx'];
    m.speak('mix', 2_000, 4_000, { key: 'a', name: ALICE, look: lit });
    m.heardUntil(6_000);
    expect(m.learner.speakerOf('mix', 2_000, 4_000)).to.equal(ALICE);
  });

  it("Meet: maps each track to the tile lit with it, keeps it across turns, and a track's tie goes to its person", () => {
    const m = meeting();
    const lit = [...REST, '0:c:q7Zx'];
    m.speak('t1', 1_500, 3_000, { key: 'a', name: ALICE, look: lit });
    m.speak('t2', 4_500, 6_000, { key: 'b', name: BOB, look: lit });
    m.heardUntil(7_500);
    expect(m.learner.speakerOf('t1', 1_500, 3_000)).to.equal(ALICE);
    expect(m.learner.speakerOf('t2', 4_500, 6_000)).to.equal(BOB);
    // Both at once, lit at the same moment: each track's words are its own person's.
    m.learner.heard({ track: 't1', speechFromMs: 8_000, speechToMs: 10_000, ended: true });
    m.learner.heard({ track: 't2', speechFromMs: 8_000, speechToMs: 10_000, ended: true });
    m.look(8_080, 'a', ALICE, lit).look(8_080, 'b', BOB, lit);
    m.look(10_300, 'a', ALICE, REST).look(10_300, 'b', BOB, REST);
    m.heardUntil(12_000);
    expect(m.learner.speakerOf('t2', 8_000, 10_000)).to.equal(BOB);
    expect(m.learner.speakerOf('t1', 8_000, 10_000)).to.equal(ALICE);
  });

  it('Meet: a track reused for someone else is mapped again by the tile lit with it', () => {
    const m = meeting().look(0, 'c', 'Carol Smith', REST);
    const lit = [...REST, '0:c:q7Zx'];
    m.speak('t1', 1_500, 3_000, { key: 'a', name: ALICE, look: lit });
    m.speak('t2', 4_000, 5_000, { key: 'b', name: BOB, look: lit });
    m.heardUntil(6_000);
    expect(m.learner.speakerOf('t1', 1_500, 3_000)).to.equal(ALICE);
    m.speak('t1', 7_000, 8_500, { key: 'c', name: 'Carol Smith', look: lit });
    m.heardUntil(10_000);
    expect(m.learner.speakerOf('t1', 7_000, 8_500)).to.equal('Carol Smith');
  });

  it('takes the captions’ word for whose track is speaking', () => {
    const m = meeting();
    const lit = [...REST, '0:c:q7Zx'];
    m.speak('t1', 1_500, 3_000);
    m.speak('t2', 1_500, 3_000);
    m.look(1_580, 'a', ALICE, lit).look(1_580, 'b', BOB, lit);
    m.look(3_300, 'a', ALICE, REST).look(3_300, 'b', BOB, REST);
    // Lit at the same moment: a tie nothing but the captions' word settles.
    m.learner.heard({ track: 't2', speechFromMs: 5_000, speechToMs: 5_500, ended: true });
    m.learner.captioned(BOB, 5_200);
    m.heardUntil(6_000);
    expect(m.learner.speakerOf('t2', 1_500, 3_000)).to.equal(BOB);
  });

  it('a tile gone from the call changes nothing for the others', () => {
    const m = meeting();
    m.speak('mix', 2_000, 3_500, { key: 'a', name: ALICE, look: [...REST, '0:c:q7Zx'] });
    m.leave(5_000, 'b');
    m.heardUntil(6_000);
    expect(m.learner.speakerOf('mix', 2_000, 3_500)).to.equal(ALICE);
  });
});
