/**
 * The actor's calls to the outside that need care: leaving with the driver (bounded, never
 * throwing) and storing a segment in transcript-store (retried while it is away).
 */
import { driverFailure, routes, ServiceError, type DriverFailure } from '@notetaker/contracts';
import { call, type Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { FinalSegment, MeetingDriver } from '../drivers/driver.js';

const DRIVER_LEAVE_TIMEOUT_MS = 30_000;
const SEGMENT_RETRY_MAX_MS = 5000;

/** driver.leave(), given at most 30 s: a hung browser must not keep the meeting from ending. */
export async function leaveWithin(driver: MeetingDriver, logger: Logger, meetingId: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      driver.leave(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('driver.leave() timed out')), DRIVER_LEAVE_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    logger.error({ err, meetingId }, 'the bot did not leave cleanly');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stores one finalized segment; retries while transcript-store is away (appends are idempotent
 * by index). False when it refused the segment (4xx) or the actor gave up (`stillWanted` false).
 */
export async function storeSegment(
  bus: Bus,
  logger: Logger,
  request: { meetingId: string; index: number; segment: FinalSegment },
  stillWanted: () => boolean,
): Promise<boolean> {
  let backoff = 100;
  for (;;) {
    try {
      await call(bus, routes.transcripts.append, request);
      return true;
    } catch (err) {
      const log = { err, meetingId: request.meetingId, index: request.index };
      if (err instanceof ServiceError && !err.retryable && err.status < 500) {
        logger.error(log, 'transcript-store refused a segment');
        return false;
      }
      if (!stillWanted()) return false;
      logger.warn(log, 'storing a segment failed; retrying');
      await new Promise((resolve) => setTimeout(resolve, backoff));
      backoff = Math.min(backoff * 2, SEGMENT_RETRY_MAX_MS);
    }
  }
}

/** A driver may throw an error carrying one of the failure reasons. */
export function driverFailureOf(err: unknown): DriverFailure | null {
  const reason = driverFailure.safeParse((err as { reason?: unknown } | null)?.reason);
  return reason.success ? reason.data : null;
}
