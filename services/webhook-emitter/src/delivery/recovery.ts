/**
 * After a (re)start, every open meeting's lane is rebuilt from the store: settled events move the
 * head past them, pending ones wait with their attempt count and next attempt time as recorded.
 * Missing sequences show up as gaps, which catch-up fills from meeting-session's log.
 */
import { TERMINAL, type CallbackDoc, type DeliveryStore } from '../store/delivery-store.js';
import { pendingFromRecord, type Emitter } from './emitter.js';
import type { MeetingLane } from './lane.js';

export async function loadLane(store: DeliveryStore, emitter: Emitter, callback: CallbackDoc): Promise<MeetingLane> {
  const lane = emitter.openLane(callback);
  for (const record of await store.readMeeting(callback._id)) {
    if (TERMINAL.has(record.state)) lane.settle(record.sequence);
    else if (record.body !== null) lane.add(pendingFromRecord(record));
  }
  lane.failing = (lane.head()?.attempts ?? 0) > 0;
  return lane;
}

/** Rebuilds the lanes of every meeting still open; returns how many. */
export async function recoverLanes(store: DeliveryStore, emitter: Emitter): Promise<number> {
  const open = await store.callbacks.find({ state: 'active', finishedAt: null });
  for (const callback of open) await loadLane(store, emitter, callback);
  return open.length;
}
