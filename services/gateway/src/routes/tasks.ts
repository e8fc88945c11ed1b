/** SPEC 4.3 tasks, answered by task-scheduler. */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function taskRoutes(router: Router, deps: RouteDeps): void {
  void router;
  void deps;
}
