/** SPEC 4.1 transcript and document, and search over saved transcripts (transcript-store). */
import type Router from '@koa/router';
import type { RouteDeps } from './deps.js';

export function transcriptRoutes(router: Router, deps: RouteDeps): void {
  void router;
  void deps;
}
