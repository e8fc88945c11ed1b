export { gatewayService, startIdentity } from './service.js';
export type { GatewayOptions, RunningGateway } from './service.js';
