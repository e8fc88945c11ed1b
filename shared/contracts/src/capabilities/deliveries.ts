/**
 * The capability of webhook-emitter: a meeting's callback delivery log, for the key that owns the
 * meeting. Answered on `routes.webhooks.deliveries`, which checks the registering key itself; the
 * gateway asks meeting-session for the owner first, so an unknown and a foreign meeting alike are
 * 404 before any log is read.
 */
import { count, defineCapability, READ } from '../capability.js';
import { webhookDeliveriesReply } from '../messages.js';
import { deliveriesRequest } from '../rest.js';
import { NOT_OWNED } from './meetings.js';

export const getDeliveries = defineCapability({
  name: 'get_deliveries',
  bus: { service: 'webhooks', verb: 'deliveries', scope: 'caller' },
  input: deliveriesRequest,
  output: webhookDeliveriesReply,
  errors: { 404: NOT_OWNED },
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/deliveries',
    summary: 'The callback delivery log of a meeting: each event, its attempts and outcome',
    description: 'Deliveries in sequence order',
  },
  tool: {
    title: "Read a meeting's callback deliveries",
    description:
      'Whether the events of a meeting this API key started reached its callbackUrl: each event with its ' +
      'attempts (status, error, duration) and outcome. Pass nextAfterSequence as `afterSequence` to read on.',
    annotations: READ,
    text: (b) =>
      `Meeting ${b.meetingId}, callback ${b.callbackState}: ${count(b.deliveries.length, 'event')}` +
      b.deliveries
        .map((d) => `\n#${d.sequence} ${d.type} ${d.outcome} (${count(d.attempts.length, 'attempt')})`)
        .join(''),
  },
});

export const DELIVERY_CAPABILITIES = [getDeliveries] as const;
