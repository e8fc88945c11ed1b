/** Query parameters several areas share (inside the contract: not exported by rest.ts). */
import { z } from 'zod';

/** A query parameter counting from 0 (the URL gives it as text): an integer, never negative. */
export const queryCount = (field: string) =>
  z.coerce
    .number({ error: `${field} must be a number` })
    .int(`${field} must be an integer`)
    .min(0, `${field} must not be negative`);

/** A page size in a query: an integer from 1 to `max`, `fallback` when absent. */
export const pageLimit = (max: number, fallback: number) =>
  z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(max, `limit must be at most ${max}`)
    .default(fallback);
