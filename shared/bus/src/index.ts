import type { Bus } from './port.js';
import { MemoryBroker } from './memory-broker.js';
import { createMemoryBus } from './memory.js';
import { connectNatsBus } from './nats.js';
export * from './port.js';
export { JsonText } from './json-payload.js';
export { MemoryBroker } from './memory-broker.js';
export { MemoryBus, createMemoryBus, sharedMemoryBroker, type MemoryBusOptions } from './memory.js';
export { NatsBus, connectNatsBus, type NatsBusOptions } from './nats.js';
export type { HandlerErrorReporter } from './inflight.js';

export interface ConnectBusOptions {
  /**
   * NATS url(s). Without one, a new in-memory bus: the connections sharing it are the services
   * the caller hands it to (the stack), so two stacks in one process never hear each other.
   */
  natsUrl?: string;
  /** Service name, shown as the NATS connection name. */
  name: string;
}

export async function connectBus(options: ConnectBusOptions): Promise<Bus> {
  if (options.natsUrl) return connectNatsBus({ servers: options.natsUrl.split(','), name: options.name });
  return createMemoryBus({ broker: new MemoryBroker() });
}
export { announce, answer, call, listen } from './routes.js';
