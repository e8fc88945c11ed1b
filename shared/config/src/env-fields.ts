/**
 * Field builders for environment schemas, so every service reads numbers, durations and flags
 * the same way and answers the same messages.
 */
import { z } from 'zod';

/** A string, unset when empty (`FOO=` in a compose file or manifest means no value). */
export const envString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));

/** An integer within [min, max], `fallback` when unset. */
export const envInt = (fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`)
    .default(fallback);

/** A positive duration in milliseconds (tests shrink them; defaults are the product's rules). */
export const envMs = (fallback: number) =>
  z.coerce.number({ error: 'must be a number of milliseconds' }).int().positive().default(fallback);

/** true/false, 1/0 or yes/no; `fallback` when unset. */
export const envBool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));

/** A JSON array of strings (flags such as `--host-resolver-rules=MAP a b` contain spaces); [] when unset. */
export const envJsonStrings = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (!raw) return [] as string[];
    try {
      const parsed: unknown = JSON.parse(raw);
      if (Array.isArray(parsed) && parsed.every((x) => typeof x === 'string')) return parsed as string[];
    } catch {
      /* reported below */
    }
    ctx.addIssue({ code: 'custom', message: 'must be a JSON array of strings' });
    return z.NEVER;
  });
