/**
 * A meeting's callback delivery log (webhook-emitter), for the key that owns the meeting.
 * Ownership is meeting-session's answer (`ownedMeeting`: 404 `Not found` for unknown and foreign
 * meetings alike); the emitter checks the registering token again before answering.
 */
import { call } from '@notetaker/bus';
import { deliveriesRequest, routes, webhookDeliveriesReply } from '@notetaker/contracts';
import { count, defineOperation, NOT_OWNED, READ } from './operation.js';
import { ownedMeeting } from './transcripts.js';

export const getDeliveries = defineOperation({
  name: 'get_deliveries',
  input: deliveriesRequest,
  output: webhookDeliveriesReply,
  rest: {
    method: 'get',
    path: '/meetings/:meetingId/deliveries',
    status: 200,
    tag: 'meetings',
    summary: 'The callback delivery log of a meeting: each event, its attempts and outcome',
    description: 'Deliveries in sequence order',
    errors: { 404: NOT_OWNED },
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
  async handler(bus, caller, { meetingId, afterSequence, limit }) {
    await ownedMeeting(bus, caller, meetingId);
    return call(bus, routes.webhooks.deliveries, { caller, meetingId, afterSequence, limit });
  },
});
