import type { Bus } from './port.js';
import { createMemoryBus } from './memory.js';
import { connectNatsBus } from './nats.js';
export * from './port.js';
export { MemoryBroker } from './memory-broker.js';
export { MemoryBus, createMemoryBus, sharedMemoryBroker, type MemoryBusOptions } from './memory.js';
export { NatsBus, connectNatsBus, type NatsBusOptions } from './nats.js';
export type { HandlerErrorReporter } from './inflight.js';

export interface ConnectBusOptions {
  /** NATS url(s); without one the process-wide in-memory bus is used (single-process runs, tests). */
  natsUrl?: string;
  /** Service name, shown as the NATS connection name. */
  name: string;
}

export async function connectBus(options: ConnectBusOptions): Promise<Bus> {
  if (options.natsUrl) return connectNatsBus({ servers: options.natsUrl.split(','), name: options.name });
  return createMemoryBus();
}
