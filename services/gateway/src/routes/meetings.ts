/** SPEC 4.1 start, stop and status, answered by meeting-session. */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function meetingRoutes(router: Router, deps: RouteDeps): void {
  void router;
  void deps;
}
