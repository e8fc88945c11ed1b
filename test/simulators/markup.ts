/**
 * The markup a simulated page is built with, drawn afresh for every page load from a seed, the way
 * a new Meet or Teams build reshuffles its DOM: 0 to MAX_WRAPPERS anonymous wrapper elements at
 * every level a driver reads (caption region, list, block, header, name, text, participant tiles,
 * controls) and obfuscated class names. A driver that leans on nesting depth or class names breaks
 * on some seed here instead of in production next week.
 *
 * The draw is a small seeded PRNG, so a seed always gives the same markup: `SIM_SEED=<seed>`
 * replays a page load that failed (its seed is recorded in the meeting's page loads, in the test's
 * title for the variant suites, and appended to any failing test's message by
 * test/support/markup-seeds.hooks.ts).
 */
import { randomInt } from 'node:crypto';

export const MAX_WRAPPERS = 3;

export interface Markup<K extends string, L extends string> {
  seed: number;
  /** Class names by role in the page, unique within the page. */
  cls: Record<K, string>;
  /** How many wrapper elements each level gets, 0 to MAX_WRAPPERS. */
  wrappers: Record<L, number>;
  /** The class name of each level's wrappers. */
  wrapperClass: Record<L, string>;
}

/** mulberry32: 32 bits of state, uniform enough for markup, identical on every run for a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed `SIM_SEED` asks to replay, or null. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const raw = env.SIM_SEED?.trim();
  if (!raw) return null;
  if (!/^\d+$/.test(raw) || Number(raw) > 0xffffffff)
    throw new Error(`SIM_SEED must be an integer 0..4294967295, not ${raw}`);
  return Number(raw);
}

export const randomSeed = (): number => randomInt(0, 0xffffffff);

/** `count` seeds for a variant suite: only SIM_SEED's when it is set (a replay), else fresh ones. */
export function variantSeeds(count: number): number[] {
  const replay = seedFromEnv();
  if (replay !== null) return [replay];
  const seeds = new Set<number>();
  while (seeds.size < count) seeds.add(randomSeed());
  return [...seeds];
}

const drawn: number[] = [];

/** Every seed a page load was drawn from in this process, in order (for failure messages). */
export function seedsDrawn(): readonly number[] {
  return drawn;
}

/** The seed for a page load: the meeting's own, else SIM_SEED, else a fresh one. */
export function pageSeed(meetingSeed: number | null | undefined): number {
  const seed = meetingSeed ?? seedFromEnv() ?? randomSeed();
  drawn.push(seed);
  return seed;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function className(random: () => number, used: Set<string>): string {
  for (;;) {
    let name = 'x';
    for (let i = 0; i < 5; i++) name += ALPHABET[Math.floor(random() * ALPHABET.length)];
    if (!used.has(name)) {
      used.add(name);
      return name;
    }
  }
}

/**
 * What a page load draws besides its wrappers and class names: one option of each list (e.g. how
 * the bot's own tile is marked). Drawn from a stream of its own, so adding a choice never changes
 * the wrappers and class names a seed already gave (recorded replays stay what they were).
 */
export function drawChoices<C extends Record<string, readonly string[]>>(
  seed: number,
  choices: C,
): { [K in keyof C]: C[K][number] } {
  const random = seededRandom((seed + 0x9e3779b9) >>> 0);
  const drawn = {} as { [K in keyof C]: C[K][number] };
  for (const key of Object.keys(choices) as Array<keyof C>)
    drawn[key] = choices[key][Math.floor(random() * choices[key].length)];
  return drawn;
}

/**
 * `laterClassKeys`: class roles added after the first ones, drawn from a stream of their own (as
 * the choices are), so adding one left every seed's other class names as they were.
 */
export function drawMarkup<K extends string, L extends string, A extends string = never>(
  seed: number,
  classKeys: readonly K[],
  levels: readonly L[],
  laterClassKeys: readonly A[] = [],
): Markup<K | A, L> {
  const random = seededRandom(seed);
  const wrappers = {} as Record<L, number>;
  for (const level of levels) wrappers[level] = Math.floor(random() * (MAX_WRAPPERS + 1));
  const used = new Set<string>();
  const cls = {} as Record<K | A, string>;
  for (const key of classKeys) cls[key] = className(random, used);
  const wrapperClass = {} as Record<L, string>;
  for (const level of levels) wrapperClass[level] = className(random, used);
  const later = seededRandom((seed ^ 0x5bd1e995) >>> 0);
  for (const key of laterClassKeys) cls[key] = className(later, used);
  return { seed, cls, wrappers, wrapperClass };
}
