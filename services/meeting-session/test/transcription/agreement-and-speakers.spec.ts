import { expect } from 'chai';
import { LocalAgreement } from '../../src/transcription/local-agreement.js';
import { SpeakerTimeline, UNKNOWN_SPEAKER } from '../../src/transcription/speaker-timeline.js';
import { OFF_GRACE_MS, SourceChoice } from '../../src/transcription/source-choice.js';

describe('LocalAgreement', () => {
  it('commits the words two passes in a row agree on, and never takes them back', () => {
    const agreement = new LocalAgreement();
    expect(agreement.update('the budget')).to.deep.equal({ stable: '', text: 'the budget' });
    expect(agreement.update('the budget review moves')).to.deep.equal({
      stable: 'the budget',
      text: 'the budget review moves',
    });
    // A pass that hears the committed words otherwise does not undo them.
    expect(agreement.update('a budget review moves to')).to.deep.equal({ stable: 'the budget', text: 'the budget' });
    expect(agreement.update('The budget, review moves to Thursday')).to.deep.equal({
      stable: 'the budget',
      text: 'the budget review moves to Thursday',
    });
    expect(agreement.agreesWith('The Budget review moves to Thursday.')).to.equal(true);
    expect(agreement.agreesWith('A budget review')).to.equal(false);
  });
});

describe('SpeakerTimeline', () => {
  it('names whoever was lit during most of an utterance, Unknown when nobody was', () => {
    const timeline = new SpeakerTimeline();
    timeline.speaking(['Ada'], 1000);
    timeline.speaking([], 4000);
    timeline.speaking(['Linus'], 5000);
    timeline.speaking([], 7000);
    expect(timeline.speakerOf(1100, 3900)).to.equal('Ada');
    expect(timeline.speakerOf(5100, 6900)).to.equal('Linus');
    expect(timeline.speakerOf(8000, 9000)).to.equal(UNKNOWN_SPEAKER);
  });

  it('tells two people talking at once apart by who started when', () => {
    const timeline = new SpeakerTimeline();
    timeline.speaking(['Ada'], 0);
    timeline.speaking(['Ada', 'Linus'], 1500);
    timeline.speaking(['Linus'], 4000);
    timeline.speaking([], 5000);
    expect(timeline.speakerOf(0, 4000)).to.equal('Ada');
    expect(timeline.speakerOf(1500, 5000)).to.equal('Linus');
  });

  it('lets old intervals go behind one that never closes (an indicator stuck on)', () => {
    const timeline = new SpeakerTimeline();
    timeline.speaking(['Stuck'], 0);
    // An hour of turns, a change every second, while Stuck stays lit.
    for (let at = 1000; at <= 3_600_000; at += 1000) timeline.speaking(['Stuck', ...(at % 2000 ? ['Ada'] : [])], at);
    // Five minutes of turns are kept (one closed interval every 2 s), twice that at most before a let-go.
    expect(timeline.size).to.be.within(150, 300 + 2);
    const names = (from: number) => timeline.scores(from, from + 1000).map(([name]) => name);
    expect(names(3_500_500)).to.have.members(['Stuck', 'Ada']);
    expect(names(1_000_500)).to.deep.equal(['Stuck']);
  });
});

describe('SourceChoice', () => {
  it('auto: to audio when captions stay off past the grace, from the last caption text; back once they are on', () => {
    const choice = new SourceChoice('auto', 0);
    choice.captionsOn(true, 2000);
    choice.captionRead(9000);
    expect(choice.check(9000)).to.equal(null);
    choice.captionsOn(false, 10_000);
    expect(choice.check(10_000 + OFF_GRACE_MS - 1)).to.equal(null);
    expect(choice.check(10_000 + OFF_GRACE_MS)).to.include({ source: 'audio', since: 9000 });
    expect(choice.source).to.equal('audio');
    choice.captionsOn(true, 20_000);
    expect(choice.check(20_000)).to.include({ source: 'captions', since: 20_000 });
  });

  it('auto: a warning that means nothing can be read switches at once; the language one too', () => {
    const choice = new SourceChoice('auto', 0);
    choice.captionsOn(true, 1000);
    choice.warning('recording_unavailable', true);
    expect(choice.check(2000)).to.equal(null);
    choice.warning('caption_language_unavailable', true);
    expect(choice.check(3000)).to.include({ source: 'audio' });
    choice.warning('caption_language_unavailable', false);
    expect(choice.check(3500)).to.include({ source: 'captions' });
  });

  it('gives the bot time to turn captions on after admission', () => {
    const choice = new SourceChoice('auto', 0);
    expect(choice.check(OFF_GRACE_MS + 1000)).to.equal(null);
  });

  it('audio and captions never switch', () => {
    const audio = new SourceChoice('audio', 0);
    audio.captionsOn(true, 0);
    expect(audio.source).to.equal('audio');
    expect(audio.check(60_000)).to.equal(null);
    const captions = new SourceChoice('captions', 0);
    expect(captions.check(60_000)).to.equal(null);
  });
});
