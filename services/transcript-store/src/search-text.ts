/**
 * Text rules shared by indexing and querying: how words are cut and folded (case and accents), how
 * a query's quoted phrases are read, and where a snippet is cut. Index and query use the same
 * functions, so "Café" in a caption and "cafe" in a query meet.
 *
 * A word is a run of letters, digits and combining marks; everything else separates words.
 * ASCII text, by far the most common, takes a faster path with the same result.
 */

const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[A-Za-z0-9]+/g;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** Lower case, without diacritics: `Évêque` -> `eveque`. */
export function fold(term: string): string {
  if (ASCII.test(term)) return term.toLowerCase();
  return term
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

export function tokenize(text: string): string[] {
  return text.match(ASCII.test(text) ? ASCII_WORD : WORD) ?? [];
}

/**
 * The text as its folded words between single spaces, with a space at each end: a word is
 * `includes(' word ')`, a prefix `includes(' pre')`, a phrase `includes(' two words ')`.
 */
export function normalize(text: string): string {
  return ` ${tokenize(text).map(fold).join(' ')} `;
}

/** Runs of white space as one space: what the index stores and snippets are cut from. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A query word of this length or more that is no word of the index matches as a prefix ("budg"). */
export const PREFIX_MIN_LENGTH = 4;

export interface ParsedQuery {
  /** Every distinct folded word of the query (bare words and the words of phrases). */
  terms: string[];
  /** Quoted phrases of two words or more, as folded word lists. */
  phrases: string[][];
}

/** `budget "next quarter" review` -> terms [budget, next, quarter, review], phrases [[next, quarter]]. */
export function parseQuery(q: string): ParsedQuery {
  const phrases: string[][] = [];
  const words: string[] = [];
  // An unbalanced quote is read as a plain character, so a stray `"` never swallows the query.
  const parts = q.split('"');
  const closed = parts.length % 2 === 1 ? parts.length : parts.length - 1;
  parts.forEach((part, i) => {
    const folded = tokenize(part).map(fold).filter(Boolean);
    if (i % 2 === 1 && i < closed && folded.length > 1) phrases.push(folded);
    words.push(...folded);
  });
  return { terms: [...new Set(words)], phrases };
}

/**
 * The strings to look for in a normalized text: one per phrase, one per word (`' word '` for an
 * exact word, `' pre'` for a word that also matches as a prefix).
 */
export interface Needles {
  phrases: string[];
  words: string[];
}

export function needlesOf(query: ParsedQuery, isPrefix: (term: string) => boolean): Needles {
  return {
    phrases: query.phrases.map((phrase) => ` ${phrase.join(' ')} `),
    words: query.terms.map((term) => (isPrefix(term) ? ` ${term}` : ` ${term} `)),
  };
}

/** How a normalized text holds the query: phrases found as phrases, distinct words found. */
export function holds(norm: string, needles: Needles): { phrases: number; words: number } {
  let phrases = 0;
  for (const needle of needles.phrases) if (norm.includes(needle)) phrases++;
  let words = 0;
  for (const needle of needles.words) if (norm.includes(needle)) words++;
  return { phrases, words };
}

type Span = { start: number; end: number };

/** Where a snippet centres: the first phrase found, else the first word that matched. */
export function anchorOf(text: string, query: ParsedQuery, isPrefix: (term: string) => boolean): Span | null {
  const words = [...text.matchAll(WORD)].map((m) => ({ word: fold(m[0]), start: m.index, end: m.index + m[0].length }));
  for (const phrase of query.phrases) {
    outer: for (let i = 0; i + phrase.length <= words.length; i++) {
      for (let j = 0; j < phrase.length; j++) if (words[i + j].word !== phrase[j]) continue outer;
      return { start: words[i].start, end: words[i + phrase.length - 1].end };
    }
  }
  const hit = words.find((w) => query.terms.some((t) => (isPrefix(t) ? w.word.startsWith(t) : w.word === t)));
  return hit ? { start: hit.start, end: hit.end } : null;
}

export const SNIPPET_CHARS = 160;

/** About SNIPPET_CHARS of (collapsed) text around the anchor, cut at spaces, with `…` where cut. */
export function snippet(clean: string, anchor: Span | null): string {
  if (clean.length <= SNIPPET_CHARS) return clean;
  const centre = anchor ? Math.floor((anchor.start + anchor.end) / 2) : 0;
  let start = Math.max(0, centre - SNIPPET_CHARS / 2);
  let end = Math.min(clean.length, start + SNIPPET_CHARS);
  start = Math.max(0, end - SNIPPET_CHARS);
  if (start > 0) {
    const space = clean.indexOf(' ', start);
    if (space >= 0 && space < (anchor?.start ?? start + 20)) start = space + 1;
  }
  if (end < clean.length) {
    const space = clean.lastIndexOf(' ', end);
    if (space > Math.max(start, anchor?.end ?? 0)) end = space;
  }
  return `${start > 0 ? '…' : ''}${clean.slice(start, end).trim()}${end < clean.length ? '…' : ''}`;
}
