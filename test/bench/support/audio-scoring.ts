/**
 * Scoring speech for the audio-transcription benchmark: words as a speech engine's text is
 * compared (lowercase, no punctuation), word edit distance for the word error rate, and a
 * counter read from the stack's Prometheus text.
 */

/** Lowercased words without punctuation. */
export const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);

/** Whether `words` begins with `prefix`. */
export const startsWithWords = (words: string[], prefix: string[]): boolean =>
  prefix.length <= words.length && prefix.every((w, i) => words[i] === w);

/** Levenshtein distance over words: substitutions, insertions and deletions turning `reference` into `hypothesis`. */
export function wordEdits(reference: string[], hypothesis: string[]): number {
  let previous = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const row = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      const same = reference[i - 1] === hypothesis[j - 1] ? 0 : 1;
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + same));
    }
    previous = row;
  }
  return previous[hypothesis.length];
}

/**
 * The sum of a metric's samples in Prometheus' text format whose labels include `labels`
 * (`meeting_transcription_requests_total{priority="partial",outcome="ok"} 12`); 0 when absent.
 */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const have = new Map<string, string>();
    if (open >= 0 && close > open) {
      for (const m of line.slice(open + 1, close).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) have.set(m[1], m[2]);
    }
    const value = open >= 0 && close > open ? line.slice(close + 1) : line.slice(name.length);
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) sum += Number(value.trim().split(' ')[0]);
  }
  return sum;
}
