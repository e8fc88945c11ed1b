import { loadBaseConfig } from '@notetaker/config';
import { createLogger } from '@notetaker/observability';
import { onShutdownSignal } from '@notetaker/service-runtime';
import { startStack } from './stack.js';

const config = loadBaseConfig();
const logger = createLogger({ process: 'stack', level: config.logLevel });
const stack = await startStack(config, logger);
logger.info(
  { url: `http://${config.host}:${stack.port}`, dataDir: config.dataDir, bus: config.natsUrl ? 'nats' : 'memory' },
  'stack started',
);
onShutdownSignal(logger, () => stack.stop());
