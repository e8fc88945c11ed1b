/** Waiting on a page: a call into a page that hangs (a renderer stuck or gone) must not hold the driver. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `work`, or a rejection saying the page did not answer within `ms`. */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the page in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
