import { expect } from 'chai';
import { Coach, type CoachInsight } from '../src/actor/coach.js';

const BASE = Date.parse('2025-03-01T10:00:00.000Z');
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

/** [seconds, speaker, text] segments. */
type Script = Array<[number, string, string]>;

/** Feeds a script's segments and returns every insight raised. */
function run(script: Script, coach = new Coach()): CoachInsight[] {
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

  it('questions: another speaker only after 30 s of silence is not an answer', () => {
    const late = run([
      [0, 'Ada', 'Any objections to shipping Friday?'],
      [40, 'Grace', 'Sorry, I was muted. None from me.'],
    ]);
    const question = late.find((i) => i.category === 'questions');
    expect(question).to.deep.include({ speaker: 'Ada' }); // the asker, not the late replier
    expect(question!.metrics.secondsWithoutAnswer).to.be.within(37, 40);
  });

  /** Scripts in which a rule stays quiet. */
  const quiet: Array<{ name: string; category: string; script: Script }> = [
    {
      name: 'talk_balance: only the last 5 minutes count',
      category: 'talk_balance',
      script: [
        [0, 'Ada', words(200)],
        [400, 'Grace', words(60)],
        [420, 'Ada', words(50)],
      ],
    },
    {
      name: 'monologue: another speaker in between starts a new turn',
      category: 'monologue',
      script: [
        [0, 'Ada', words(20)],
        [50, 'Grace', 'Right.'],
        [55, 'Ada', words(20)],
        [100, 'Ada', words(20)],
      ],
    },
    {
      name: 'questions: another speaker within 30 s answers, even after the asker went on',
      category: 'questions',
      script: [
        [0, 'Ada', 'Any objections to shipping Friday?'],
        [10, 'Ada', 'Take your time.'],
        [25, 'Grace', 'None from me.'],
        [90, 'Ada', 'Great.'],
      ],
    },
    {
      name: 'questions: the window counts from the end of a long question',
      category: 'questions',
      // 75 words take about 30 s to say, so a reply 40 s after the segment starts is prompt.
      script: [
        [0, 'Ada', `${words(74)} agreed?`],
        [40, 'Grace', 'Agreed.'],
      ],
    },
  ];
  for (const { name, category, script } of quiet) {
    it(name, () => {
      expect(categories(run(script))).to.not.include(category);
    });
  }
});

describe('Coach: each category at most once per 5 minutes', () => {
  const count = (insights: CoachInsight[], category: string) => insights.filter((i) => i.category === category);

  /**
   * On one coach: an early script raising the category once and, within 5 minutes, no more; then a
   * later one, past the 5 minutes, raising it once again.
   */
  const earlyAndLater: Array<{ category: string; early: Script; later: Script }> = [
    {
      category: 'talk_balance',
      early: [
        [0, 'Grace', words(30)],
        [20, 'Ada', words(40)],
        [40, 'Ada', words(40)], // raised here
        [100, 'Ada', words(40)], // still lopsided, within 5 minutes
      ],
      later: [
        [350, 'Grace', words(10)],
        [360, 'Ada', words(80)], // 120 of 130 words, 320 s after the first
      ],
    },
    {
      category: 'pace',
      early: [
        [0, 'Ada', words(190)],
        [60, 'Ada', words(190)], // raised here
        [90, 'Ada', words(190)], // faster still, within 5 minutes
      ],
      later: [
        [300, 'Ada', words(190)],
        [360, 'Ada', words(190)], // 5 minutes after the first
      ],
    },
    {
      category: 'questions',
      // Seven questions, each answered too late.
      early: Array.from({ length: 7 }, (_, q): Script => [
        [q * 40, 'Ada', 'Anyone?'],
        [q * 40 + 35, 'Grace', 'Sorry, missed that.'],
      ]).flat(),
      later: [
        [400, 'Ada', 'Anyone now?'],
        [440, 'Ada', 'No.'],
      ],
    },
  ];
  for (const { category, early, later } of earlyAndLater) {
    it(category, () => {
      const coach = new Coach();
      expect(count(run(early, coach), category), 'the early script').to.have.length(1);
      expect(count(run(later, coach), category), 'the later script').to.have.length(1);
    });
  }

  it('monologue', () => {
    const coach = new Coach();
    const turn = (from: number, speaker: string): Script =>
      [0, 30, 60, 85, 100].map((s) => [from + s, speaker, words(20)]); // past 90 s at from + 85
    const early = run([...turn(0, 'Ada'), ...turn(110, 'Grace'), [220, 'Ada', 'Thanks.']], coach);
    expect(count(early, 'monologue').map((i) => i.speaker)).to.deep.equal(['Ada']);
    const later = run([...turn(400, 'Grace')], coach);
    expect(count(later, 'monologue').map((i) => i.speaker)).to.deep.equal(['Grace']);
  });

  it('monologue: a turn that passes 90 s during the limit is reported once the limit ends, still once', () => {
    const script: Script = [];
    for (let s = 0; s <= 90; s += 30) script.push([s, 'Ada', words(20)]); // raised at 90 s
    script.push([100, 'Grace', 'Go on.']);
    for (let s = 110; s <= 500; s += 30) script.push([s, 'Ada', words(20)]); // past 90 s at 200 s
    const monologues = count(run(script), 'monologue');
    expect(monologues).to.have.length(2);
    // 90 s + 5 min = 390 s: the first segment of the same turn from then on is at 410 s.
    expect(monologues[1].metrics.turnSeconds).to.equal(308);
  });
});
