/**
 * How every test waits for something that happens in the background, in one place: poll, and
 * fail after a deadline with what was awaited. Two forms share one loop:
 *
 * - `eventually(check)`: until `check` returns a truthy value (returned); a check that throws is
 *   tried again, and its last error is the failure's message once time is up.
 * - `eventuallyPasses(assertion)`: until `assertion` stops throwing (chai expectations, say).
 *
 * The second argument is what is awaited (for the failure's message) or the timeout in ms; the
 * third is the timeout when the second names it.
 */
import { mock } from 'node:test';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const DEFAULT_TIMEOUT_MS = 8000;
const POLL_MS = 10;

type Falsy = false | 0 | '' | null | undefined;

export async function eventually<T>(
  check: () => T | Promise<T>,
  whatOrTimeout?: string | number,
  timeoutMs?: number,
): Promise<Exclude<T, Falsy>> {
  const { what, deadline } = terms(whatOrTimeout, timeoutMs);
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Exclude<T, Falsy>;
      lastError = null;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline.at) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${deadline.ms} ms waiting for ${what}${cause}`, { cause: lastError });
    }
    await sleep(POLL_MS);
  }
}

export async function eventuallyPasses<T>(
  assertion: () => T | Promise<T>,
  whatOrTimeout?: string | number,
  timeoutMs?: number,
): Promise<T> {
  const { deadline } = terms(whatOrTimeout, timeoutMs);
  for (;;) {
    try {
      return await assertion();
    } catch (err) {
      // The assertion's own message says what was expected: fail with it, unchanged.
      if (Date.now() > deadline.at) throw err;
    }
    await sleep(POLL_MS);
  }
}

function terms(whatOrTimeout: string | number | undefined, timeoutMs: number | undefined) {
  const what = typeof whatOrTimeout === 'string' ? whatOrTimeout : 'a condition';
  const ms = typeof whatOrTimeout === 'number' ? whatOrTimeout : (timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return { what, deadline: { at: Date.now() + ms, ms } };
}

/**
 * Runs `action` with this process's Date.now() moved `ms` ahead (node:test's mocked Date; timers
 * stay real), so a test of an expiry checked against the clock does not wait for it.
 */
export async function afterClockMoves<T>(ms: number, action: () => Promise<T>): Promise<T> {
  mock.timers.enable({ apis: ['Date'], now: Date.now() });
  try {
    mock.timers.tick(ms);
    return await action();
  } finally {
    mock.timers.reset();
  }
}
