/** Seeded randomness for the fuzz tests: the same seed gives the same run, so a failure can be replayed. */

/** A linear congruential generator: numbers in [0, 1), the sequence fixed by `seed`. */
export function seededRandom(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** `count` strings of characters drawn from `alphabet`, each shorter than `maxLength`. */
export function* randomStrings(
  random: () => number,
  alphabet: readonly string[],
  { count, maxLength }: { count: number; maxLength: number },
): Generator<string> {
  for (let i = 0; i < count; i++) {
    yield Array.from(
      { length: Math.floor(random() * maxLength) },
      () => alphabet[Math.floor(random() * alphabet.length)],
    ).join('');
  }
}
