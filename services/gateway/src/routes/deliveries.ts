/** A meeting's callback delivery log (webhook-emitter). */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function deliveryRoutes(router: Router, deps: RouteDeps): void {
  void router;
  void deps;
}
