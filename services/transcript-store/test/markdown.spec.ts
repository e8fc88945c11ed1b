import { expect } from 'chai';
import { parse } from 'yaml';
import { offset, renderFrontMatter, renderHeading, renderSegment, type FrontMatter } from '../src/markdown.js';
import { anchorOf, collapse, holds, needlesOf, normalize, parseQuery, snippet } from '../src/search-text.js';

const base: FrontMatter = {
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
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let i = 0; i < 1000; i++) {
        const title = Array.from(
          { length: Math.floor(random() * 60) },
          () => alphabet[Math.floor(random() * alphabet.length)],
        ).join('');
        expect(readBack(renderFrontMatter({ ...base, title })).title, JSON.stringify(title)).to.equal(title);
      }
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
