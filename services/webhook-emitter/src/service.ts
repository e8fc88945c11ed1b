/**
 * The webhook-emitter service: signed, ordered, durable callbacks (docs/api/reference.md#events).
 * Serves svc.webhooks.register and svc.webhooks.deliveries; consumes every meeting event
 * (evt.meeting.*.*) in queue group q.webhooks; asks the gateway for signing secrets and
 * meeting-session for events it missed. See docs/services/webhook-emitter.md.
 */
import { answer } from '@notetaker/bus';
import { eventEnvelope, evtMeeting, firstIssueMessage, queueGroup, routes } from '@notetaker/contracts';
import type { RunningService, ServiceContext, ServiceDefinition } from '@notetaker/service-runtime';
import { deliveryLog } from './api/delivery-log.js';
import { registerCallback } from './api/register.js';
import { loadEmitterConfig } from './config.js';
import { CatchUp } from './delivery/catch-up.js';
import { Dispatcher } from './delivery/dispatcher.js';
import { Emitter } from './delivery/emitter.js';
import { recoverLanes } from './delivery/recovery.js';
import { RetryPolicy } from './delivery/retry-policy.js';
import { Sender } from './delivery/sender.js';
import { SigningSecrets } from './delivery/signing-secrets.js';
import { EmitterMetrics } from './metrics.js';
import { AddressPolicy, createGuardedAgents, type Resolver } from '@notetaker/net';
import { DeliveryStore } from './store/delivery-store.js';

export interface WebhookEmitterOptions {
  /** DNS for callback hosts (default: the system's). Tests pass one that maps names to chosen addresses. */
  resolver?: Resolver;
}

const PRUNE_INTERVAL_MS = 60 * 60 * 1000;

export function webhookEmitterService(options: WebhookEmitterOptions = {}): ServiceDefinition {
  return {
    name: 'webhook-emitter',
    async start(ctx: ServiceContext): Promise<RunningService> {
      const config = loadEmitterConfig(ctx.config.env);
      const { bus, logger } = ctx;
      const policy = new AddressPolicy({ allowPrivate: config.allowPrivate, allowedHosts: config.allowedHosts });
      const agents = createGuardedAgents({
        policy,
        maxSocketsPerReceiver: config.receiverConcurrency,
        resolver: options.resolver,
      });
      const store = new DeliveryStore(ctx.store);
      await store.init();
      const dispatcher = new Dispatcher(config.receiverConcurrency, config.globalConcurrency, (err) =>
        logger.error({ err }, 'delivery failed unexpectedly'),
      );
      const emitter = new Emitter({
        store,
        dispatcher,
        sender: new Sender(agents, config.timeoutMs),
        secrets: new SigningSecrets(bus, config.secretCacheMs),
        retry: new RetryPolicy(config.retry),
        logger,
      });
      emitter.metrics = new EmitterMetrics(
        ctx.metrics,
        () => emitter.pendingCount(),
        () => emitter.lanes.size,
      );
      const catchUp = new CatchUp(bus, store, emitter, config, logger);

      // Lanes first, subscription second: a live event must find its lane's recorded state.
      const open = await recoverLanes(store, emitter);
      const queue = queueGroup('webhooks');
      const subscriptions = [
        answer(bus, routes.webhooks.register, (req) => registerCallback(req, { store, emitter, policy }), { queue }),
        answer(bus, routes.webhooks.deliveries, (req) => deliveryLog(req, store), { queue }),
        bus.subscribe(
          evtMeeting('*', '*'),
          (data) => {
            const parsed = eventEnvelope.safeParse(data);
            if (!parsed.success) {
              logger.warn({ problem: firstIssueMessage(parsed.error) }, 'ignoring a malformed meeting event');
              return;
            }
            return emitter.ingest(parsed.data);
          },
          { queue },
        ),
      ];
      emitter.kickAll();
      catchUp.start();
      const prune = setInterval(() => {
        store.prune(new Date(Date.now() - config.retentionMs).toISOString()).catch((err: unknown) => {
          logger.warn({ err }, 'pruning the delivery log failed');
        });
      }, PRUNE_INTERVAL_MS);
      prune.unref();
      logger.info({ openMeetings: open, allowPrivate: config.allowPrivate }, 'webhook emitter started');

      return {
        ready: () => true,
        async stop() {
          clearInterval(prune);
          await Promise.all(subscriptions.map((s) => s.unsubscribe()));
          catchUp.stop();
          await emitter.stop();
          agents.destroy();
        },
      };
    },
  };
}
