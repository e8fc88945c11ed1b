/**
 * Operational endpoints every service exposes: liveness, readiness and Prometheus metrics.
 */
import Router from '@koa/router';
import client from 'prom-client';

export type ReadinessCheck = () => boolean | Promise<boolean>;
/** What /readyz shows beside its status, without failing it (e.g. meeting-session's `bots`). */
export type ReadinessDetails = () => Record<string, unknown>;

export function createMetricsRegistry(service: string): client.Registry {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service });
  client.collectDefaultMetrics({ register: registry });
  return registry;
}

export function opsRouter(options: {
  registry: client.Registry;
  ready: ReadinessCheck;
  details?: ReadinessDetails;
}): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const ready = await Promise.resolve(options.ready()).catch(() => false);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', ...options.details?.() };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = options.registry.contentType;
    ctx.body = await options.registry.metrics();
  });
  return router;
}
