import { expect } from 'chai';
import { Coach, type CoachInsight } from '../src/actor/coach.js';

const BASE = Date.parse('2025-03-01T10:00:00.000Z');
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/** Feeds [seconds, speaker, text] segments and returns every insight raised. */
function run(script: Array<[number, string, string]>, coach = new Coach()): CoachInsight[] {
  return script.flatMap(([s, speaker, text]) =>
    coach.observe({ speaker, text, timestamp: new Date(BASE + s * 1000).toISOString() }),
  );
}

const categories = (insights: CoachInsight[]) => insights.map((i) => i.category);

describe('Coach rules', () => {
  it('talk_balance: one speaker over 65% of the words of the last 5 minutes, with 2+ speakers', () => {
    const insights = run([
      [0, 'Grace', words(30)],
      [20, 'Ada', words(40)],
      [40, 'Ada', words(40)],
    ]);
    const balance = insights.find((i) => i.category === 'talk_balance');
    expect(balance).to.deep.include({ speaker: 'Ada' });
    expect(balance!.metrics).to.deep.include({ words: 80, totalWords: 110, speakers: 2 });
  });

  it('talk_balance: not with one speaker, not at 65% or below, not on a handful of words', () => {
    expect(categories(run([[0, 'Ada', words(150)]]))).to.not.include('talk_balance');
    expect(
      categories(
        run([
          [0, 'Grace', words(35)],
          [20, 'Ada', words(65)],
        ]),
      ),
    ).to.not.include('talk_balance');
    expect(
      categories(
        run([
          [0, 'Grace', 'hi'],
          [5, 'Ada', words(20)],
        ]),
      ),
    ).to.not.include('talk_balance');
  });

  it('talk_balance: only the last 5 minutes count', () => {
    const insights = run([
      [0, 'Ada', words(200)],
      [400, 'Grace', words(60)],
      [420, 'Ada', words(50)],
    ]);
    expect(categories(insights)).to.not.include('talk_balance');
  });

  it('monologue: a turn past 90 s, flagged once per turn', () => {
    const insights = run([
      [0, 'Ada', words(20)],
      [30, 'Ada', words(20)],
      [60, 'Ada', words(20)],
      [85, 'Ada', words(20)], // 85 s + ~8 s of speech
      [100, 'Ada', words(20)],
    ]);
    expect(categories(insights).filter((c) => c === 'monologue')).to.have.length(1);
    expect(insights.find((i) => i.category === 'monologue')).to.deep.include({ speaker: 'Ada' });
  });

  it('monologue: another speaker in between starts a new turn', () => {
    const insights = run([
      [0, 'Ada', words(20)],
      [50, 'Grace', 'Right.'],
      [55, 'Ada', words(20)],
      [100, 'Ada', words(20)],
    ]);
    expect(categories(insights)).to.not.include('monologue');
  });

  it('pace: over 180 words per minute over 2 minutes', () => {
    const fast = run([
      [0, 'Ada', words(190)],
      [60, 'Ada', words(190)],
    ]);
    expect(fast.find((i) => i.category === 'pace')!.metrics.wordsPerMinute).to.equal(190);
    const normal = run([
      [0, 'Ada', words(150)],
      [60, 'Ada', words(150)],
    ]);
    expect(categories(normal)).to.not.include('pace');
  });

  it('questions: a question nobody else answers within 30 s', () => {
    const ignored = run([
      [0, 'Ada', 'Any objections to shipping Friday?'],
      [35, 'Ada', 'Great, Friday it is.'],
    ]);
    expect(ignored.find((i) => i.category === 'questions')).to.deep.include({ speaker: 'Ada' });
    const answered = run([
      [0, 'Ada', 'Any objections to shipping Friday?'],
      [10, 'Grace', 'None from me.'],
      [45, 'Ada', 'Great.'],
    ]);
    expect(categories(answered)).to.not.include('questions');
    const patient = run([
      [0, 'Ada', 'Any objections?'],
      [10, 'Ada', 'Take your time.'],
    ]);
    expect(categories(patient)).to.not.include('questions');
  });

  it('raises each category at most once per 5 minutes', () => {
    const coach = new Coach();
    const script: Array<[number, string, string]> = [];
    for (let q = 0; q < 8; q++) {
      script.push([q * 40, 'Ada', 'Anyone?']);
      script.push([q * 40 + 35, 'Ada', 'No? Fine.']);
    }
    const early = run(script, coach).filter((i) => i.category === 'questions');
    expect(early).to.have.length(1); // 8 ignored questions within 5 minutes
    const later = run(
      [
        [400, 'Ada', 'Anyone now?'],
        [440, 'Ada', 'No.'],
      ],
      coach,
    ).filter((i) => i.category === 'questions');
    expect(later).to.have.length(1);
  });
});
