/**
 * After a (re)start, every open meeting's lane is rebuilt from the store (Emitter.loadLane):
 * settled events move the head past them, pending ones wait with their attempt count and next
 * attempt time as recorded.
 */
import type { DeliveryStore } from '../store/delivery-store.js';
import type { Emitter } from './emitter.js';

/** Rebuilds the lanes of every meeting still open; returns how many. */
export async function recoverLanes(store: DeliveryStore, emitter: Emitter): Promise<number> {
  const open = await store.callbacks.find({ state: 'active', finishedAt: null });
  for (const callback of open) await emitter.loadLane(callback);
  return open.length;
}
