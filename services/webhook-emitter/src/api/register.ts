/**
 * svc.webhooks.register, called by meeting-session at start: where a meeting's events go and
 * which token's secret signs them. A meeting started from the UI (tokenId null) has no key, so no
 * secret: nothing is ever sent for it (every callback we send is signed), and it is recorded as
 * `no_key` so the log says why. Re-registering is idempotent; after a 410 Gone only a different
 * URL opens the callback again.
 */
import { errors, type webhookRegister } from '@notetaker/contracts';
import type { z } from 'zod';
import type { Emitter } from '../delivery/emitter.js';
import { callbackUrlProblem, type AddressPolicy } from '@notetaker/net';
import type { CallbackDoc, CallbackState, DeliveryStore } from '../store/delivery-store.js';

export async function registerCallback(
  request: z.infer<typeof webhookRegister>,
  deps: { store: DeliveryStore; emitter: Emitter; policy: AddressPolicy },
): Promise<{ meetingId: string; state: CallbackState }> {
  const { meetingId, callbackUrl, tokenId } = request;
  const problem = callbackUrlProblem(callbackUrl, deps.policy);
  if (problem) throw errors.badRequest(problem);
  const { callbacks } = deps.store;
  const existing = await callbacks.findOne({ _id: meetingId });
  const now = new Date().toISOString();

  if (tokenId === null) {
    const lane = deps.emitter.lanes.get(meetingId);
    if (lane) await deps.emitter.settlement.finish(lane);
    await callbacks.updateOne(
      { _id: meetingId },
      {
        $set: { callbackUrl, tokenId: null, state: 'no_key', goneAt: null, finalSequence: null, finishedAt: now },
        $setOnInsert: { registeredAt: now },
      },
      { upsert: true },
    );
    deps.emitter.settlement.closedLanes.forget(meetingId); // never to reopen: the store says no_key now
    return { meetingId, state: 'no_key' };
  }
  if (existing?.state === 'gone' && existing.callbackUrl === callbackUrl) return { meetingId, state: 'gone' };

  // New, or reopened (after 410 with a new URL, or a UI record taken over): a fresh lane from the store.
  const reopen = !existing || existing.state !== 'active';
  await callbacks.updateOne(
    { _id: meetingId },
    {
      $set: { callbackUrl, tokenId, state: 'active', goneAt: null, ...(reopen ? { finishedAt: null } : {}) },
      $setOnInsert: { registeredAt: now, finalSequence: null },
    },
    { upsert: true },
  );
  const lane = deps.emitter.lanes.get(meetingId);
  if (lane) {
    lane.callback = { url: callbackUrl, tokenId, origin: new URL(callbackUrl).origin };
  } else if (reopen) {
    await deps.emitter.loadLane((await callbacks.findOne({ _id: meetingId })) as CallbackDoc);
  }
  return { meetingId, state: 'active' };
}
