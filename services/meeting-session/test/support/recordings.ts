/**
 * What recording tests read: the file as stored (over the bus, as the gateway reads it), and the
 * appends and finishes the worker sends, seen by a plain subscriber of their subjects on the bus.
 */
import { expect } from 'chai';
import { RECORDING_MAX_CHUNK_BYTES, routes, type RecordingGap } from '@notetaker/contracts';
import { call, type Bus, type Subscription } from '@notetaker/bus';
import { decodeAudio } from '../../../../test/support/audio.js';
import { oggPages } from './opus-tone.js';

/** The recording's bytes as stored now. */
export async function storedBytes(bus: Bus, meetingId: string): Promise<Buffer> {
  const info = await call(bus, routes.recordings.get, { meetingId });
  const parts: Buffer[] = [];
  for (let start = 0; start < (info?.bytes ?? 0); start += RECORDING_MAX_CHUNK_BYTES - 1) {
    const end = Math.min(info!.bytes, start + RECORDING_MAX_CHUNK_BYTES - 1) - 1;
    parts.push(Buffer.from((await call(bus, routes.recordings.read, { meetingId, start, end })).data, 'base64'));
  }
  return Buffer.concat(parts);
}

export async function storedSeconds(bus: Bus, meetingId: string): Promise<number> {
  const bytes = await storedBytes(bus, meetingId);
  return bytes.length === 0 ? 0 : decodeAudio(bytes).seconds;
}

/** Each page once, in order: a batch stored twice repeats page numbers, one lost skips some. */
export function expectPagesOnceInOrder(file: Buffer): void {
  const pages = oggPages(file);
  const wrong = pages.findIndex((p, i) => p.sequence !== i);
  expect(wrong, `page ${wrong} is number ${pages[wrong]?.sequence}`).to.equal(-1);
  for (let i = 1; i < pages.length; i++) expect(pages[i].granule).to.be.at.least(pages[i - 1].granule);
}

export interface SentAppend {
  sequence: number | undefined;
  offset: number;
  length: number;
}

/** The appends and finishes the worker sends (every attempt), by meeting, from the moment this subscribes. */
export class RecordingRequests {
  private readonly sent = new Map<string, SentAppend[]>();
  private readonly finished = new Map<string, Array<{ gaps?: RecordingGap[]; lostAtMs?: number }>>();
  private readonly subs: Subscription[];

  constructor(bus: Bus) {
    const add = <T>(map: Map<string, T[]>, meetingId: string, item: T) =>
      map.set(meetingId, [...(map.get(meetingId) ?? []), item]);
    this.subs = [
      bus.subscribe(routes.recordings.append.subject, (data) => {
        const req = data as { meetingId: string; sequence?: number; offset: number; data: string };
        const length = Buffer.from(req.data, 'base64').length;
        add(this.sent, req.meetingId, { sequence: req.sequence, offset: req.offset, length });
      }),
      bus.subscribe(routes.recordings.finish.subject, (data) => {
        const req = data as { meetingId: string; gaps?: RecordingGap[]; lostAtMs?: number };
        add(this.finished, req.meetingId, { gaps: req.gaps, lostAtMs: req.lostAtMs });
      }),
    ];
  }

  appends(meetingId: string): SentAppend[] {
    return this.sent.get(meetingId) ?? [];
  }

  finishes(meetingId: string): Array<{ gaps?: RecordingGap[]; lostAtMs?: number }> {
    return this.finished.get(meetingId) ?? [];
  }

  /** Attempts beyond the first of each batch. */
  retries(meetingId: string): number {
    const appends = this.appends(meetingId);
    return appends.length - new Set(appends.map((a) => a.sequence)).size;
  }

  /**
   * Every batch is sent with one identity: each attempt of a sequence has its offset and length,
   * sequences count up from 0, and each batch starts where the one before ends.
   */
  expectOneIdentityPerBatch(meetingId: string): void {
    const bySequence = new Map<number, SentAppend>();
    for (const append of this.appends(meetingId)) {
      expect(append.sequence, 'every append carries its sequence').to.be.a('number');
      const first = bySequence.get(append.sequence!);
      if (first) expect(append, `batch ${append.sequence} sent again as it was`).to.deep.equal(first);
      else bySequence.set(append.sequence!, append);
    }
    const batches = [...bySequence.values()].sort((a, b) => a.sequence! - b.sequence!);
    expect(batches.length).to.be.above(0);
    batches.forEach((batch, i) => {
      expect(batch.sequence).to.equal(i);
      expect(batch.offset, `batch ${i} follows the one before`).to.equal(
        i === 0 ? 0 : batches[i - 1].offset + batches[i - 1].length,
      );
    });
  }

  async stop(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.unsubscribe()));
  }
}
