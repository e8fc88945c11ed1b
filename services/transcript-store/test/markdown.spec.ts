import { expect } from 'chai';
import { parse } from 'yaml';
import {
  appendSegments,
  continues,
  offset,
  renderFrontMatter,
  renderHeading,
  renderSegment,
  type DocumentHeader,
} from '../src/markdown.js';
import { anchorOf, collapse, holds, needlesOf, normalize, parseQuery, snippet } from '../src/search-text.js';
import { randomStrings, seededRandom } from './support/fuzz.js';

const base: DocumentHeader = {
  title: 'Weekly sync',
  meetingId: 'meeting_1732183200000_abcdefghij',
  date: '2024-11-21T10:00:00.000Z',
  status: 'in_progress',
  participants: ['Alice'],
  platform: 'google_meet',
  project: 'api',
};

/** What any reader does: the block between the first two `---` lines, through a YAML parser. */
function readBack(document: string): Record<string, unknown> {
  const lines = document.split('\n');
  expect(lines[0]).to.equal('---');
  const end = lines.indexOf('---', 1);
  expect(end).to.be.above(0);
  return parse(lines.slice(1, end).join('\n')) as Record<string, unknown>;
}

describe('markdown documents', () => {
  describe('front matter round trip (fuzz cases)', () => {
    const titles = [
      '---\nx: y',
      '---',
      '...',
      'title: injected\nstatus: completed',
      'Q3: planning: final',
      '"double" and \'single\' quotes',
      '# not a comment',
      'a # b',
      '- list item',
      '[flow, seq]',
      '{a: 1}',
      '&anchor *alias',
      '!!binary AAAA',
      '|\n  block',
      '> folded',
      'tab\there',
      'nul\0byte',
      'bell\x07 and escape\x1b[31m',
      '\ufeffBOM first',
      'trailing newline\n',
      '\n\nleading newlines',
      '   spaces around   ',
      'true',
      'null',
      '~',
      '2024-11-21',
      '0x1F',
      '1e3',
      '@at `backtick` %percent',
      'emoji 🎉 and accents éàü and RTL \u202e',
      'x'.repeat(300),
      '\u2028line separator\u2029',
    ];
    for (const title of titles) {
      it(`keeps ${JSON.stringify(title.slice(0, 40))} exactly`, () => {
        const document = renderFrontMatter({ ...base, title, participants: [title, 'Bob'] });
        const back = readBack(document);
        expect(back).to.deep.equal({ ...base, title, participants: [title, 'Bob'] });
      });
    }

    it('keeps every random title exactly (fuzz)', () => {
      const alphabet = [
        '-',
        '-',
        '-',
        '\n',
        ':',
        ' ',
        '"',
        "'",
        '#',
        '\\',
        '\0',
        '\t',
        'a',
        'é',
        '🎉',
        '{',
        '[',
        '&',
        '*',
        '!',
        '|',
        '>',
        '%',
        '@',
        '`',
        '.',
      ];
      for (const title of randomStrings(seededRandom(7), alphabet, { count: 1000, maxLength: 60 })) {
        expect(readBack(renderFrontMatter({ ...base, title })).title, JSON.stringify(title)).to.equal(title);
      }
    });

    it('adds the caption language and the bot account after the rest when known, and nothing when null', () => {
      const document = renderFrontMatter({ ...base, language: 'ja', signedInAs: 'Notetaker "Bot"\nOps' });
      expect(Object.keys(readBack(document))).to.deep.equal([...Object.keys(base), 'language', 'signedInAs']);
      expect(readBack(document)).to.include({ language: 'ja', signedInAs: 'Notetaker "Bot"\nOps' });
      expect(renderFrontMatter({ ...base, language: null, signedInAs: null })).to.equal(renderFrontMatter(base));
    });

    it('puts no value on more than one line, so the closing --- is the only one at column 0', () => {
      const document = renderFrontMatter({ ...base, title: 'a\n---\nb' });
      expect(document.split('\n').filter((l) => l === '---')).to.have.length(2);
    });
  });

  describe('segments', () => {
    it('writes speaker, offset from the start and text on one line', () => {
      const line = renderSegment(
        { speaker: 'Alice', text: 'Hello', timestamp: '2024-11-21T11:02:03.400Z' },
        Date.parse('2024-11-21T10:00:00.000Z'),
      );
      expect(line).to.equal('**Alice** (01:02:03): Hello\n\n');
    });

    it('keeps caption text from starting markdown blocks, HTML or front matter', () => {
      const line = renderSegment(
        { speaker: 'Eve**', text: 'x\n---\n# title\n<script>{alert(1)}</script> [a](b)', timestamp: base.date },
        Date.parse(base.date),
      );
      expect(line.trimEnd().split('\n')).to.have.length(1);
      expect(line).to.equal(
        '**Eve\\*\\*** (00:00:00): x --- \\# title \\<script\\>\\{alert(1)\\}\\</script\\> \\[a\\](b)\n\n',
      );
      expect(renderHeading('a\nb # c')).to.equal('\n# a b \\# c\n\n');
    });

    it('continues a paragraph only for the same speaker and an unfinished sentence', () => {
      const alice = (text: string) => ({ speaker: 'Alice', text, timestamp: base.date });
      const next = alice('and more');
      for (const unfinished of [
        'since it blocks the',
        'one, two,',
        'see (above)',
        'x - ',
        'Dr',
        '\u6211\u4eec\u9700\u8981',
      ])
        expect(continues(alice(unfinished), next), unfinished).to.equal(true);
      const finished = [
        'Done.',
        'Really?',
        'Stop!',
        'Well\u2026',
        'and so on...',
        '"Done."',
        '(Done.)',
        'He said \u201cgo.\u201d',
      ];
      const cjk = [
        '\u7d42\u308f\u308a\u3002',
        '\u672c\u5f53\uff1f',
        '\u3059\u3054\u3044\uff01',
        '\u300c\u7d42\u308f\u308a\u3002\u300d',
        '\u597d\uff0e',
      ];
      for (const sentence of [...finished, ...cjk]) expect(continues(alice(sentence), next), sentence).to.equal(false);
      expect(continues({ ...alice('since it blocks the'), speaker: 'Bob' }, next)).to.equal(false);
      expect(continues(null, next)).to.equal(false);
      expect(continues(alice(''), next), 'after an empty segment').to.equal(false);
      expect(continues({ ...alice('and'), speaker: '' }, { ...next, speaker: '' }), 'unknown speakers').to.equal(false);
    });

    it('renders the same body flushed in any number of pieces as in one (fuzz)', () => {
      const random = seededRandom(11);
      const texts = ['so the', 'release', 'is late.', 'Why?', 'because', '\u7d42\u308f\u308a\u3002', 'ok'];
      for (let round = 0; round < 200; round++) {
        const segments = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, i) => ({
          speaker: random() < 0.7 ? 'Alice' : 'Bob',
          text: texts[Math.floor(random() * texts.length)],
          timestamp: new Date(Date.parse(base.date) + i * 1000).toISOString(),
        }));
        const whole = appendSegments('', segments, Date.parse(base.date), null);
        let body = '';
        for (let from = 0; from < segments.length;) {
          const to = from + 1 + Math.floor(random() * 3);
          body = appendSegments(body, segments.slice(from, to), Date.parse(base.date), segments[from - 1] ?? null);
          from = to;
        }
        expect(body).to.equal(whole);
        // Every paragraph starts with a speaker; each ends the sentence or the speaker's run.
        expect(whole.endsWith('\n\n')).to.equal(true);
        for (const paragraph of whole.split('\n\n').filter(Boolean))
          expect(paragraph).to.match(/^\*\*(Alice|Bob)\*\* \(/);
      }
    });

    it('says where the words come from only where that changes, and marks speech not transcribed', () => {
      const at = (s: number) => new Date(Date.parse(base.date) + s * 1000).toISOString();
      const segments = [
        { speaker: 'Alice', text: 'From the captions and', timestamp: at(1), source: 'captions' as const },
        { speaker: 'Alice', text: 'from the audio.', timestamp: at(4), source: 'audio' as const },
        {
          speaker: 'Bob',
          text: '',
          timestamp: at(9),
          source: 'audio' as const,
          untranscribed: { reason: 'engine_unavailable' as const, until: at(15) },
        },
        { speaker: 'Bob', text: 'Back on captions.', timestamp: at(20) },
      ];
      const body = appendSegments('', segments, Date.parse(base.date), null);
      expect(body).to.equal(
        [
          '**Alice** (00:00:01): From the captions and',
          "_Transcribed from the meeting's audio (speech engine) from here on._",
          '**Alice** (00:00:04): from the audio.',
          '**Bob** (00:00:09): _[not transcribed until 00:00:15: the speech engine did not answer]_',
          "_Transcribed from the platform's captions from here on._",
          '**Bob** (00:00:20): Back on captions.',
          '',
        ].join('\n\n'),
      );
      // A meeting heard from its audio alone says so once, at the top; one from captions alone never.
      expect(renderSegment(segments[1], Date.parse(base.date), null)).to.match(
        /^_Transcribed from the meeting's audio/,
      );
      expect(renderSegment(segments[0], Date.parse(base.date), null)).to.match(/^\*\*Alice/);
      // Flushed in pieces, the same body.
      const pieces = appendSegments(
        appendSegments('', segments.slice(0, 2), Date.parse(base.date), null),
        segments.slice(2),
        Date.parse(base.date),
        segments[1],
      );
      expect(pieces).to.equal(body);
    });

    it('shows a timestamp before the start (clock skew) as 00:00:00', () => {
      expect(offset(Date.parse('2024-11-21T09:59:59.000Z') - Date.parse(base.date))).to.equal('00:00:00');
      expect(offset(NaN)).to.equal('00:00:00');
    });
  });

  describe('search text', () => {
    it('reads quoted phrases and words, ignoring an unbalanced quote', () => {
      expect(parseQuery('Budget "Next Quarter" review')).to.deep.equal({
        terms: ['budget', 'next', 'quarter', 'review'],
        phrases: [['next', 'quarter']],
      });
      expect(parseQuery('"open phrase')).to.deep.equal({ terms: ['open', 'phrase'], phrases: [] });
      expect(parseQuery('Café')).to.deep.equal({ terms: ['cafe'], phrases: [] });
    });

    it('cuts a snippet around the phrase, at word boundaries', () => {
      const text = collapse(`${'alpha '.repeat(40)}the next   quarter plan ${'omega '.repeat(40)}`);
      const query = parseQuery('"next quarter"');
      expect(
        holds(
          normalize(text),
          needlesOf(query, () => false),
        ),
      ).to.deep.equal({ phrases: 1, words: 2 });
      const cut = snippet(
        text,
        anchorOf(text, query, () => false),
      );
      expect(cut).to.match(/^…alpha .* the next quarter plan omega .*omega…$/);
      expect(cut.length).to.be.at.most(162);
    });

    it('folds words the same way for any script, and splits on anything that is not a letter or digit', () => {
      expect(normalize('Ça coûte 3,50€ — n’est-ce pas? ÉCOLE')).to.equal(' ca coute 3 50 n est ce pas ecole ');
      expect(normalize('plain ASCII, with: punctuation!')).to.equal(' plain ascii with punctuation ');
      const prefixes = needlesOf(parseQuery('budg pla'), (t) => t.length >= 4);
      expect(holds(normalize('the budgeting plan'), prefixes)).to.deep.equal({ phrases: 0, words: 1 });
    });
  });
});
