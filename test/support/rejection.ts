/** What a promise that must fail failed with; a success fails the test. */
import { ServiceError } from '@notetaker/contracts';

export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** The ServiceError a request failed with (a success, or any other error, fails the test). */
export async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  const err = await rejectionOf(promise);
  if (err instanceof ServiceError) return err;
  throw err;
}
