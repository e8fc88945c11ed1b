/**
 * The recording's timeline is the meeting's, from admission: each batch's packets go where the
 * page's clock puts them (webm-batches.ts), and a gap in the page's audio (a page reloaded, a
 * renderer that made less audio than time passed) is filled with silence, so an utterance sits in
 * the file at the time it was spoken. Packets are never dropped or moved earlier: a batch that
 * comes a little early (the clocks' jitter) follows the previous one.
 */
import {
  OggOpusWriter,
  OPUS_RATE,
  SILENT_PACKET,
  SILENT_PACKET_SAMPLES,
  type OpusPacket,
  type WriterMark,
} from './ogg.js';
import type { AudioBatch } from './page-capture.js';

/** Gaps shorter than this are the clocks' jitter, not missing audio. */
const GAP_FILL_MS = 100;

export interface Placed {
  /** The Ogg pages to append. */
  pages: Buffer;
  /** 48 kHz samples of the page's audio in them, and of silence filled in. */
  heard: number;
  filled: number;
}

export class RecordingTimeline {
  private readonly writer: OggOpusWriter;

  /** `startedAt`: epoch ms of the file's first sample. */
  constructor(
    private readonly startedAt: number,
    serial: number,
  ) {
    this.writer = new OggOpusWriter(serial);
  }

  /** Samples in the file so far (after the decoder's pre-skip). */
  get samples(): number {
    return this.writer.samples;
  }

  /** The file's first pages. */
  headers(): Buffer {
    return this.writer.headers();
  }

  /**
   * The timeline as it is now: pages placed after this that could not be stored are undone by
   * `rewind`, so the file's page numbers and granule positions run on without a hole, and the next
   * batch's place on the meeting's clock is reached with silence (a gap the recorder names).
   */
  mark(): WriterMark {
    return this.writer.mark();
  }

  rewind(mark: WriterMark): void {
    this.writer.rewind(mark);
  }

  /** One batch from the page, each packet placed on the meeting's timeline. */
  add(batch: AudioBatch): Placed {
    const data = Buffer.from(batch.data, 'base64');
    const packets: OpusPacket[] = [];
    // Where the file will be once the packets so far are in, in samples.
    let position = this.writer.samples;
    let offset = 0;
    let heard = 0;
    let filled = 0;
    batch.sizes.forEach((size, i) => {
      const gap = this.silenceBetween(position, batch.epochMs + batch.timestampsUs[i] / 1000);
      const samples = Math.round((batch.durationsUs[i] * OPUS_RATE) / 1_000_000);
      // What precedes the first packet is the wait for the page, not a page falling behind.
      if (position > 0) filled += gap.length * SILENT_PACKET_SAMPLES;
      heard += samples;
      packets.push(...gap, { bytes: data.subarray(offset, offset + size), samples });
      position += gap.length * SILENT_PACKET_SAMPLES + samples;
      offset += size;
    });
    return { pages: this.writer.pages(packets), heard, filled };
  }

  /** Silence up to `at` (epoch ms): the moments the page did not hand over before the bot left. */
  until(at: number): Buffer {
    return this.writer.pages(this.silenceBetween(this.writer.samples, at));
  }

  /** Silence from `position` (samples into the file) to `at` (epoch ms), when that gap is longer than clocks jitter. */
  private silenceBetween(position: number, at: number): OpusPacket[] {
    const missing = ((at - this.startedAt) * OPUS_RATE) / 1000 - position;
    if (missing <= (GAP_FILL_MS * OPUS_RATE) / 1000) return [];
    return Array.from({ length: Math.floor(missing / SILENT_PACKET_SAMPLES) }, () => ({
      bytes: SILENT_PACKET,
      samples: SILENT_PACKET_SAMPLES,
    }));
  }
}
