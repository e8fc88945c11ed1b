/**
 * get_deliveries (capabilities/deliveries.ts): the owner check is meeting-session's (`ownedMeeting`:
 * 404 for unknown and foreign meetings alike), then the log is the emitter's, on the capability's
 * route (the emitter checks the registering token again before answering).
 */
import { call } from '@notetaker/bus';
import { getDeliveries as getDeliveriesCapability } from '@notetaker/contracts';
import { composed } from './operation.js';
import { ownedMeeting } from './transcripts.js';

export const getDeliveries = composed(getDeliveriesCapability, async (bus, caller, input) => {
  await ownedMeeting(bus, caller, input.meetingId);
  return call(bus, getDeliveriesCapability.route, { ...input, caller });
});
