/**
 * Until the store had sequence logs, the event log was the `event_pages` collection: one document
 * per page, `{_id: "<meetingId>:<first>", meetingId, first, last, events}` with `events` the JSON
 * array text. On start the registry moves what is there into the log, so no meeting's stream
 * restarts at 1 after an upgrade. A move cut short is finished by the next start: pages the log
 * holds already are skipped.
 */
import type { LogPage, SequenceLog, Store } from '@notetaker/store';

type OldPage = { _id: string; meetingId: string; first: number; last: number; events: string };

/** Pages per append while moving: one write each, a bounded size each. */
const MOVE_BATCH = 500;

/** Moves the old collection's pages into `log`, then empties it; returns how many were moved. */
export async function moveOldEventPages(store: Store, log: SequenceLog): Promise<number> {
  const old = store.collection<OldPage>('event_pages');
  const pages = await old.find({}, { sort: { meetingId: 1, first: 1 } });
  if (pages.length === 0) return 0;
  const lastOf = new Map<string, number>();
  let batch: LogPage[] = [];
  let moved = 0;
  for (const page of pages) {
    const last = lastOf.get(page.meetingId) ?? (await log.lastSequence(page.meetingId));
    if (page.first <= last) continue;
    batch.push({ key: page.meetingId, first: page.first, last: page.last, body: page.events });
    lastOf.set(page.meetingId, page.last);
    if (batch.length === MOVE_BATCH) {
      await log.append(batch);
      moved += batch.length;
      batch = [];
    }
  }
  if (batch.length > 0) await log.append(batch);
  moved += batch.length;
  await old.deleteMany({});
  return moved;
}
