/**
 * LocalAgreement over one utterance's growing hypotheses: the engine is asked again about once a
 * second with more of the utterance, and a word is committed once two passes in a row agree on
 * it and on everything before it. Committed words never change in a partial; the final may still
 * differ (the engine hears the whole utterance), and then the actor shows a corrected partial first.
 */
export class LocalAgreement {
  private previous: string[] = [];
  private committed: string[] = [];

  /** Takes the newest pass; returns what to show: the committed words and the rest of this pass. */
  update(text: string): { stable: string; text: string } {
    const words = split(text);
    let agreed = 0;
    while (agreed < words.length && agreed < this.previous.length && same(words[agreed], this.previous[agreed]))
      agreed++;
    if (agreed > this.committed.length && startsWith(words, this.committed)) this.committed = words.slice(0, agreed);
    this.previous = words;
    const rest = startsWith(words, this.committed) ? words.slice(this.committed.length) : [];
    return { stable: this.committed.join(' '), text: [...this.committed, ...rest].join(' ') };
  }

  /** Whether `text` keeps every committed word where it was. */
  agreesWith(text: string): boolean {
    return startsWith(split(text), this.committed);
  }

  get stable(): string {
    return this.committed.join(' ');
  }
}

const split = (text: string) => text.trim().split(/\s+/).filter(Boolean);

/** Two words agree whatever their case or trailing punctuation ("Hello," and "hello"). */
const same = (a: string, b: string) => norm(a) === norm(b);
const norm = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '');

function startsWith(words: string[], prefix: string[]): boolean {
  return prefix.length <= words.length && prefix.every((word, i) => same(word, words[i]));
}
