/**
 * Graceful shutdown on SIGTERM/SIGINT: the first signal drains (stop accepting, finish in-flight
 * work, close bus and store); a second one exits at once for an operator who will not wait.
 */
import type { Logger } from '@notetaker/observability';

export function onShutdownSignal(logger: Logger, drain: () => Promise<void>): void {
  let draining = false;
  const handle = (signal: NodeJS.Signals) => {
    if (draining) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    draining = true;
    logger.info({ signal }, 'shutting down');
    drain().then(
      () => {
        logger.info('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handle);
  process.on('SIGINT', handle);
}
