/**
 * What the test speech engine can hear: a JSGF grammar built from the whole sentences a test will
 * speak, the pronunciations of their words (Debian's CMU dictionary), and the way back from the
 * recognized words to the sentences as they were written.
 *
 * The grammar is `[ <whole>* <prefix> ]`:
 *  - `<prefix>` is any sentence's first words (`w1 [w2 [w3 ...]]`), because a live caller sends
 *    the same utterance again about once a second while it grows;
 *  - `<whole>*` lets one utterance hold several sentences in a row, because voice-activity
 *    cutting need not split between them;
 *  - the whole thing is optional, so silence or noise decodes to nothing instead of the
 *    closest-sounding word (without it, white noise came out as "we").
 * Only the last sentence of an utterance may be cut short: allowing a prefix anywhere made the
 * decoder end a sentence early and start another one on the rest of a word.
 *
 * A lone first word after a whole sentence is dropped: espeak-ng draws out a sentence's last
 * vowel, and the decoder heard its tail as a short first word ("...on Friday. I", "...time. Our")
 * in a third of the utterances; a live caller loses at most the first word of the next sentence
 * for one partial.
 */
import { readFileSync } from 'node:fs';

export const CMU_DICTIONARY = '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict';

/** A sentence as the test wrote it, and the words the decoder says for it. */
interface Sentence {
  text: string;
  words: string[];
  /** For each original whitespace-separated token, how many words it gave (0 for a lone dash). */
  wordsPerToken: number[];
}

export interface RecognizedSegment {
  /** The sentence's original text when it was heard whole; its first words otherwise. */
  text: string;
  /** Index of the first and one past the last recognized word of this segment. */
  from: number;
  to: number;
}

export interface SentenceGrammar {
  /** The JSGF grammar's text (for pocketsphinx's -jsgf). */
  jsgf: string;
  /** Pronunciations of the grammar's words only (for -dict): loads in a millisecond, cmudict in ~0.3 s. */
  dictionary: string;
  /**
   * The recognized words split back into the sentences they came from, with each whole sentence's
   * casing and punctuation restored and a cut one as its original first tokens (no end punctuation).
   * Words that cannot be split that way (never, in principle) come back as one lowercase segment.
   */
  segments(words: string[]): RecognizedSegment[];
}

const lowerWord = (token: string) =>
  token
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[^a-z0-9'-]/g, '')
    .replace(/^['-]+|['-]+$/g, '');

/**
 * Splits a sentence into dictionary words: lowercase, punctuation dropped, a hyphenated word kept
 * whole when the dictionary has it ("follow-up") and split otherwise.
 */
function toSentence(text: string, known: (word: string) => boolean): Sentence {
  const words: string[] = [];
  const wordsPerToken: number[] = [];
  for (const token of text.trim().split(/\s+/)) {
    const word = lowerWord(token);
    const parts = !word ? [] : known(word) || !word.includes('-') ? [word] : word.split('-').filter(Boolean);
    words.push(...parts);
    wordsPerToken.push(parts.length);
  }
  return { text: text.trim(), words, wordsPerToken };
}

/** Every pronunciation of every word of the dictionary, by word ("the" -> ["the DH AH", "the(2) DH IY"]). */
function readDictionary(): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  for (const line of readFileSync(CMU_DICTIONARY, 'utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const word = line.slice(0, space).replace(/\(\d+\)$/, '');
    const list = entries.get(word);
    if (list) list.push(line);
    else entries.set(word, [line]);
  }
  return entries;
}

let dictionary: Map<string, string[]> | null = null;

export function buildSentenceGrammar(texts: readonly string[]): SentenceGrammar {
  dictionary ??= readDictionary();
  const known = (word: string) => dictionary!.has(word);
  const sentences: Sentence[] = [];
  for (const text of texts) {
    const sentence = toSentence(text, known);
    if (sentence.words.length === 0) throw new Error(`speech engine: the sentence "${text}" has no words`);
    if (!sentences.some((s) => s.words.join(' ') === sentence.words.join(' '))) sentences.push(sentence);
  }
  if (sentences.length === 0) throw new Error('speech engine: give it at least one sentence to recognize');

  const vocabulary = [...new Set(sentences.flatMap((s) => s.words))];
  const unknown = vocabulary.filter((w) => !known(w));
  if (unknown.length > 0) {
    throw new Error(
      `speech engine: no pronunciation for ${unknown.map((w) => `"${w}"`).join(', ')} in ${CMU_DICTIONARY}; ` +
        'write numbers as words and prefer common English words and names',
    );
  }

  const prefixOf = (words: string[]) => words[0] + words.slice(1).reduceRight((inner, w) => ` [${w}${inner}]`, '');
  const jsgf = [
    '#JSGF V1.0;',
    'grammar sentences;',
    'public <utterance> = [ <whole>* <prefix> ];',
    `<whole> = ${sentences.map((s) => s.words.join(' ')).join(' | ')};`,
    `<prefix> = ${sentences.map((s) => prefixOf(s.words)).join(' | ')};`,
    '',
  ].join('\n');
  const pronunciations = vocabulary.flatMap((w) => dictionary!.get(w)!);

  return {
    jsgf,
    dictionary: pronunciations.join('\n') + '\n',
    segments: (words) => splitIntoSentences(sentences, words),
  };
}

function splitIntoSentences(sentences: Sentence[], words: string[]): RecognizedSegment[] {
  const startsWith = (s: Sentence, at: number, count: number) =>
    count <= s.words.length && s.words.slice(0, count).every((w, i) => words[at + i] === w);

  // Whole sentences first, then one last (maybe cut) sentence: the grammar's own shape.
  const parse = (at: number): RecognizedSegment[] | null => {
    if (at === words.length) return [];
    const rest = words.length - at;
    for (const s of sentences) {
      if (s.words.length > rest || !startsWith(s, at, s.words.length)) continue;
      const after = parse(at + s.words.length);
      if (after) return [{ text: s.text, from: at, to: at + s.words.length }, ...after];
    }
    const cut = sentences.find((s) => startsWith(s, at, rest));
    return cut ? [{ text: firstWordsOf(cut, rest), from: at, to: words.length }] : null;
  };
  if (words.length === 0) return [];
  const segments = parse(0) ?? [{ text: words.join(' '), from: 0, to: words.length }];
  const last = segments[segments.length - 1];
  const loneTail = segments.length > 1 && last.to - last.from === 1 && !sentences.some((s) => s.words.length === 1);
  return loneTail ? segments.slice(0, -1) : segments;
}

/** A sentence's first `count` words as written, when they end on a token; else as recognized. */
function firstWordsOf(sentence: Sentence, count: number): string {
  const tokens = sentence.text.split(/\s+/);
  let covered = 0;
  for (let i = 0; i < tokens.length; i++) {
    covered += sentence.wordsPerToken[i];
    if (covered === count) {
      return tokens
        .slice(0, i + 1)
        .join(' ')
        .replace(/[^\p{L}\p{N}]+$/u, '');
    }
    if (covered > count) break;
  }
  return sentence.words.slice(0, count).join(' ');
}
