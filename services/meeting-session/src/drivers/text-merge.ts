/**
 * Word-level comparison of caption texts. Platforms rewrite captions as recognition improves
 * (case, punctuation, a corrected word), so texts are compared on normalised words.
 */

export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/** A word without case and punctuation: "There," and "there" are the same word. */
export function normWord(word: string): string {
  return word
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[^\p{L}\p{N}']/gu, '');
}

function sameWords(a: string[], b: string[], aFrom: number, count: number): number {
  let matches = 0;
  for (let i = 0; i < count; i++) if (normWord(a[aFrom + i]) === normWord(b[i])) matches++;
  return matches;
}

/**
 * How many words vanished from the start of a caption between two displays of it. Meet drops the
 * start of long turns, so the new display begins somewhere inside the old one; the words before
 * that point must be kept. 0 when the new text does not start inside the old one at all (a plain
 * rewrite keeps everything that was dropped before, so it needs no special case).
 */
export function headDropOffset(previous: string[], next: string[]): number {
  if (!previous.length || !next.length) return 0;
  let fuzzy = -1;
  for (let k = 0; k < previous.length; k++) {
    const window = Math.min(4, previous.length - k, next.length);
    const matches = sameWords(previous, next, k, window);
    if (matches === window) return k;
    // Corrections may touch the overlap too: one mismatch in a window of three or more still counts.
    if (fuzzy < 0 && window >= 3 && matches >= window - 1) fuzzy = k;
  }
  return Math.max(fuzzy, 0);
}

/**
 * The words of `current` that come after the already finalised `done` words, so that a turn that
 * resumes after being finalised reports only what is new, even if the finalised part was revised.
 */
export function wordsAfter(done: string[], current: string[]): string[] {
  if (!done.length) return current;
  let i = 0;
  while (i < done.length && i < current.length && normWord(done[i]) === normWord(current[i])) i++;
  if (i === done.length) return current.slice(i);
  // The finalised part was revised: anchor on its last words, nearest to where it used to end.
  for (let size = Math.min(3, done.length); size >= 1; size--) {
    const tail = done.slice(-size);
    let best = -1;
    for (let end = size; end <= current.length; end++) {
      if (sameWords(current, tail, end - size, size) !== size) continue;
      if (best < 0 || Math.abs(end - done.length) < Math.abs(best - done.length)) best = end;
    }
    if (best >= 0) return current.slice(best);
  }
  return current.slice(done.length);
}

/** Whether two texts are plausibly revisions of the same caption (a shared start or most words). */
export function relatedTexts(a: string[], b: string[]): boolean {
  const shorter = Math.min(a.length, b.length);
  if (shorter === 0) return false;
  let prefix = 0;
  while (prefix < shorter && normWord(a[prefix]) === normWord(b[prefix])) prefix++;
  if (prefix >= Math.min(2, shorter)) return true;
  if (shorter < 2) return false;
  const inB = new Set(b.map(normWord));
  const shared = a.filter((word) => inB.has(normWord(word))).length;
  return shared >= shorter / 2;
}
