/**
 * Class names made up afresh for every page load, like the obfuscated names of a new Meet or Teams
 * build: a driver that leans on them breaks on the next load instead of in production next week.
 */
import { randomBytes } from 'node:crypto';

export function generatedClassNames<K extends string>(keys: readonly K[]): Record<K, string> {
  const used = new Set<string>();
  const names = {} as Record<K, string>;
  for (const key of keys) {
    let name: string;
    do {
      const raw = randomBytes(4)
        .toString('base64')
        .replace(/[^A-Za-z0-9]/g, '');
      name = 'x' + raw.slice(0, 5);
    } while (used.has(name) || name.length < 4);
    used.add(name);
    names[key] = name;
  }
  return names;
}
