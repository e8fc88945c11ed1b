import path from 'node:path';
import { expect } from 'chai';
import {
  MAX_TITLE_BYTES,
  MAX_TITLE_CHARS,
  datePart,
  documentFileName,
  documentPath,
  ordinal,
  resolveInside,
  safeTitlePart,
} from '../src/document-path.js';
import { randomStrings, seededRandom } from './support/fuzz.js';

describe('document paths', () => {
  it('writes English ordinals, 11th to 13th included', () => {
    const expected: Record<number, string> = {
      1: '1st',
      2: '2nd',
      3: '3rd',
      4: '4th',
      10: '10th',
      11: '11th',
      12: '12th',
      13: '13th',
      14: '14th',
      20: '20th',
      21: '21st',
      22: '22nd',
      23: '23rd',
      24: '24th',
      30: '30th',
      31: '31st',
    };
    for (const [day, text] of Object.entries(expected)) expect(ordinal(Number(day))).to.equal(text);
  });

  it('names every month in English, on the UTC date of the start', () => {
    // Node's own English month names are the oracle, not a copy of the list under test.
    const english = new Intl.DateTimeFormat('en-US', { month: 'long', timeZone: 'UTC' });
    for (let month = 0; month < 12; month++) {
      const at = new Date(Date.UTC(2024, month, 2, 12));
      expect(datePart(at.toISOString())).to.equal(`${english.format(at)} 2nd`);
    }
    // 23:30 on the 21st in New York is the 22nd in UTC.
    expect(datePart('2024-11-21T23:30:00.000-05:00')).to.equal('November 22nd');
  });

  it('builds the documented shape, with (2) (3) for copies', () => {
    expect(documentPath('api', documentFileName('2024-11-21T10:00:00Z', 'Weekly sync'))).to.equal(
      'deployed-md-files/docs/api/meetings/November 21st - Weekly sync.md',
    );
    expect(documentFileName('2024-03-03T10:00:00Z', 'Retro', 3)).to.equal('March 3rd - Retro (3).md');
  });

  describe('titles made safe for a file name (fuzz cases)', () => {
    const cases: Array<[string, string | null]> = [
      ['Weekly sync', 'Weekly sync'],
      ['../../etc/passwd', 'etc passwd'],
      ['..', null],
      ['.', null],
      ['...hidden', 'hidden'],
      ['. . .x', 'x'],
      ['trailing dots...', 'trailing dots'],
      ['CON', 'CON_'],
      ['nul', 'nul_'],
      ['com1', 'com1_'],
      ['LPT9.txt', 'LPT9_.txt'],
      ['CONSOLE', 'CONSOLE'],
      ['a\0b', 'a b'],
      ['\0', null],
      ['line\nbreak\r\ttab', 'line break tab'],
      ['---\nx: y', '--- x y'],
      ['C:\\Windows\\System32', 'C Windows System32'],
      ['what? <why> "how" | *star*', 'what why how star'],
      ['  padded  ', 'padded'],
      ['# heading: yes', '# heading yes'],
      ['right\u202eto-left', 'right to-left'],
      ['', null],
      ['   ', null],
    ];
    for (const [title, expected] of cases) {
      it(`${JSON.stringify(title)} -> ${JSON.stringify(expected)}`, () => {
        expect(safeTitlePart(title)).to.equal(expected);
      });
    }

    it('caps a 300-character title by characters and by bytes, without splitting a character', () => {
      expect(safeTitlePart('a'.repeat(300))).to.equal('a'.repeat(MAX_TITLE_CHARS));
      const emoji = safeTitlePart('👩‍👩‍👧'.repeat(100))!;
      expect(Buffer.byteLength(emoji)).to.be.at.most(MAX_TITLE_BYTES);
      expect(emoji.length % '👩‍👩‍👧'.length).to.equal(0);
      const accents = safeTitlePart('é'.repeat(300))!;
      expect(Buffer.byteLength(accents)).to.be.at.most(MAX_TITLE_BYTES);
      expect(accents).to.match(/^é+$/);
    });

    it('never yields a separator, a control character, a leading dot or a name too long (random fuzz)', () => {
      const alphabet = [
        'a',
        'Z',
        ' ',
        '.',
        '/',
        '\\',
        '\0',
        '\n',
        ':',
        '"',
        '#',
        '-',
        'é',
        '😀',
        '\u202e',
        '\x7f',
        '*',
        '|',
      ];
      for (const title of randomStrings(seededRandom(42), alphabet, { count: 2000, maxLength: 320 })) {
        const part = safeTitlePart(title);
        if (part === null) continue;
        expect(part).to.not.match(/[/\\:*?"<>|\p{Cc}\u202e]/u);
        expect(part.startsWith('.')).to.equal(false);
        expect(part).to.equal(part.trim());
        expect(Buffer.byteLength(documentFileName('2024-09-30T00:00:00Z', part, 999))).to.be.below(255);
        const file = resolveInside('/content', documentPath('p', documentFileName('2024-09-30T00:00:00Z', part)));
        expect(path.dirname(file)).to.equal('/content/deployed-md-files/docs/p/meetings');
      }
    });
  });

  it('refuses any documentPath that leaves <root>/deployed-md-files/docs/<project>/meetings', () => {
    const ok = resolveInside('/srv/content', 'deployed-md-files/docs/api/meetings/a.md');
    expect(ok).to.equal('/srv/content/deployed-md-files/docs/api/meetings/a.md');
    for (const bad of [
      '../../etc/passwd',
      '/etc/passwd',
      'deployed-md-files/docs/api/meetings/../../../../etc/passwd.md',
      'deployed-md-files/docs/api/meetings/.hidden.md',
      'deployed-md-files/docs/api/meetings/sub/a.md',
      'deployed-md-files/docs/../docs/api/other/a.md',
      'deployed-md-files/docs/api/meetings/a.txt',
      'deployed-md-files/docs/.x/meetings/a.md',
      'deployed-md-files/docs/api/meetings/a\0.md',
    ]) {
      expect(() => resolveInside('/srv/content', bad), bad).to.throw('Document path escapes the content root');
    }
    expect(() => documentPath('../x', 'a.md')).to.throw(/project must match/);
  });
});
