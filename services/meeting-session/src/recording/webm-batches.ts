/**
 * The worker's side of the page's recording (page-capture.ts): the WebM slices MediaRecorder hands
 * over become batches of Opus packets placed on the page's clock, which the recorder writes as Ogg
 * pages (recorder.ts, which fills with silence what the clock says is missing).
 *
 * Two clocks, neither enough alone:
 * - the packets' lengths (their samples): exact while the page's audio graph renders all the time,
 *   which it does, pauses included; a renderer stalled for a moment renders what it missed when it
 *   resumes, so the samples still are the meeting's timeline;
 * - Chromium's block stamps: when each packet's audio reached the recorder (wall time, from the
 *   stream's first frame), jittering by ±20 ms, and after a stall a gap followed by a burst of
 *   packets all stamped at once. A stamp is never much earlier than its audio.
 * So each packet sits at its place in the samples; the stamps say only how much audio the page
 * never made (a renderer short of CPU for long): over a batch, the smallest lead of a stamp over
 * its place in the samples. A stall's gap and burst come in the same slice, and the burst's
 * last packets bring the smallest lead back to about zero. Where the stamps' zero is on the wall
 * clock is measured from the slices: a slice's last packet ended before the page took the slice,
 * so the smallest `taken - end` over recent slices is the estimate.
 *
 * Audio that cannot be read (a mangled slice, whose cluster the demuxer skips; a slice that never
 * came; a packet whose length cannot be told) is skipped, never the rest of the stream: the first
 * packet read after it moves the samples on by what the stamps say was skipped, so what follows
 * sits where it was heard (the file silent in between), and the span is reported, once per burst
 * of bad slices (unreadable-bursts.ts), for the recording's gaps.
 */
import { opusPacketSamples, OPUS_RATE } from './ogg.js';
import type { AudioBatch, RecordingSlice, SkippedAudio } from './page-capture.js';
import { UnreadableBursts } from './unreadable-bursts.js';
import { WebmDemuxer, WebmError, type WebmFrame, type WebmTrack } from './webm.js';

/** Slices (about one a second) whose readings make the estimate of where the stamps' zero is. */
const READINGS = 30;

interface Packet extends WebmFrame {
  durationUs: number;
}

export class WebmBatches {
  private stream: string | null = null;
  private demuxer = new WebmDemuxer();
  /** Audio in the stream so far, µs (audio skipped as unreadable included). */
  private samplesUs = 0;
  private readings: number[] = [];
  /** The slice expected next: one with a larger number means those between never came. */
  private nextSeq = 0;
  /** Where the last packet read ends on the stamps, µs: what a resumed stream skipped is measured from there. */
  private stampEndUs = 0;
  /** Epoch ms where the audio placed so far ends; null before the stream's first packet. */
  private placedEndMs: number | null = null;
  private lastAt: number | null = null;
  /** Why the next packet read resumes after audio that was not (a packet dropped, its length unknown). */
  private resumeWhy: string | null = null;
  /** Why the page's recorder was replaced, until the new one's stream begins. */
  private restartWhy: string | null = null;
  private readonly bursts: UnreadableBursts;

  /**
   * `skipped`: audio of the stream that could not be read (or never came), once per burst, with
   * the span of the meeting it covered; the batches after it sit where they were heard, the file
   * silent in between.
   */
  constructor(skipped: (skip: SkippedAudio) => void = () => {}) {
    this.bursts = new UnreadableBursts(skipped);
  }

  /**
   * One slice from the page: the batch of packets it completes (null if none, or if the slice
   * belongs to a stream whose start was not seen). Bytes that cannot be read are skipped (see
   * webm.ts); throws WebmError when the stream is not an Opus WebM stream (or its header is unreadable).
   */
  take(slice: RecordingSlice): AudioBatch | null {
    if (slice.stream !== this.stream) {
      // A page reloaded starts a recorder of its own: a new stream, a new timeline.
      if (slice.seq !== 0) return null;
      const restarted = this.restartWhy;
      const endedAt = this.placedEndMs ?? this.lastAt;
      this.restartWhy = null;
      this.end();
      this.stream = slice.stream;
      this.demuxer = new WebmDemuxer();
      this.samplesUs = 0;
      this.readings = [];
      this.nextSeq = 0;
      this.stampEndUs = 0;
      this.placedEndMs = null;
      this.lastAt = null;
      this.resumeWhy = restarted;
      // The failed recorder's last moments are lost, up to the new one's first packet.
      if (restarted !== null && endedAt !== null) this.bursts.unreadable(restarted, slice.at, endedAt, 0);
    }
    if (slice.seq < this.nextSeq) return null;
    const previousAt = this.lastAt;
    // Where the audio read so far ends: where a burst that begins here begins.
    const readUntil = () => this.placedEndMs ?? previousAt ?? slice.at;
    this.lastAt = slice.at;
    if (slice.seq > this.nextSeq) {
      const why = `slices ${this.nextSeq} to ${slice.seq - 1} of the page's recording never came`;
      this.bursts.unreadable(why, slice.at, readUntil(), slice.seq - this.nextSeq);
      this.demuxer.resync(why);
    }
    this.nextSeq = slice.seq + 1;
    const packets = this.packets(this.demuxer.push(Buffer.from(slice.data, 'base64')));
    const batch = packets.length > 0 ? this.batch(slice, packets) : null;
    const lost = this.demuxer.lost;
    if (lost !== null) this.bursts.unreadable(lost, slice.at, readUntil(), 1);
    else if (this.resumeWhy !== null) this.bursts.unreadable(this.resumeWhy, slice.at, readUntil(), 0);
    return batch;
  }

  /**
   * The page's recorder failed and another took over (its stream comes next, from slice 0): the
   * audio between the failed one's last packet and the new one's first is skipped.
   */
  restarted(why: string): void {
    this.restartWhy = why;
  }

  /** The stream ends (the capture stopped): audio unreadable up to here is reported. */
  end(): void {
    if (this.lastAt !== null) this.bursts.end(this.lastAt);
  }

  /**
   * The frames' Opus packets with their lengths. One whose length cannot be told is dropped (the
   * file would lose its timing): the next one resumes after it.
   */
  private packets(frames: WebmFrame[]): Packet[] {
    if (frames.length === 0) return [];
    const track = this.opusTrack();
    const packets: Packet[] = [];
    for (const frame of frames) {
      const resumed = frame.resumed ?? this.resumeWhy;
      this.resumeWhy = null;
      const durationUs = frame.track === track.number ? (opusPacketSamples(frame.bytes) * 1_000_000) / OPUS_RATE : 0;
      if (durationUs > 0) packets.push({ ...frame, durationUs, resumed: resumed ?? undefined });
      else if (frame.track === track.number) this.resumeWhy = resumed ?? 'an Opus packet whose length cannot be told';
      else this.resumeWhy = resumed;
    }
    return packets;
  }

  private batch(slice: RecordingSlice, packets: Packet[]): AudioBatch {
    const timestampsUs: number[] = [];
    const resumes: Array<{ index: number; skippedUs: number; why: string }> = [];
    let leadUs = Infinity;
    for (const packet of packets) {
      if (packet.resumed !== undefined) {
        // What was skipped, by the stamps: the audio after it sits where it was heard.
        const skippedUs = this.skippedUs(packet.timeUs, slice.at);
        this.samplesUs += skippedUs;
        resumes.push({ index: timestampsUs.length, skippedUs, why: packet.resumed });
      }
      timestampsUs.push(this.samplesUs);
      leadUs = Math.min(leadUs, packet.timeUs - this.samplesUs);
      this.samplesUs += packet.durationUs;
      this.stampEndUs = packet.timeUs + packet.durationUs;
    }
    const last = packets[packets.length - 1];
    this.readings.push(slice.at - (last.timeUs + last.durationUs) / 1000);
    if (this.readings.length > READINGS) this.readings.shift();
    const epochMs = Math.min(...this.readings) + leadUs / 1000;
    for (const { index, skippedUs, why } of resumes) {
      const toMs = epochMs + timestampsUs[index] / 1000;
      this.bursts.unreadable(why, slice.at, toMs - skippedUs / 1000, 0);
      this.bursts.resumed(toMs);
    }
    this.placedEndMs = epochMs + this.samplesUs / 1000;
    return {
      epochMs,
      timestampsUs,
      data: Buffer.concat(packets.map((p) => p.bytes)).toString('base64'),
      sizes: packets.map((p) => p.bytes.length),
      durationsUs: packets.map((p) => p.durationUs),
      tracks: slice.tracks,
    };
  }

  /**
   * The audio skipped before a packet stamped `timeUs` (in a slice taken at `at`): from the end of
   * the last one read, by the stamps, and never more than the wall clock allows (a mangled stamp
   * that passed for one).
   */
  private skippedUs(timeUs: number, at: number): number {
    const wallUs = this.placedEndMs === null ? Infinity : Math.max(0, at - this.placedEndMs) * 1000;
    return Math.min(Math.max(0, timeUs - this.stampEndUs), wallUs);
  }

  private opusTrack(): WebmTrack {
    const audio = this.demuxer.tracks.find((t) => t.type === 2 || t.codec.startsWith('A_'));
    if (!audio) throw new WebmError('the stream has no audio track');
    if (audio.codec !== 'A_OPUS') throw new WebmError(`the stream's audio is ${audio.codec}, not Opus`);
    return audio;
  }
}
