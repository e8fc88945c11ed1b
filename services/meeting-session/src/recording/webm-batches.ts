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
 */
import { opusPacketSamples, OPUS_RATE } from './ogg.js';
import type { AudioBatch, RecordingSlice } from './page-capture.js';
import { WebmDemuxer, WebmError, type WebmTrack } from './webm.js';

/** Slices (about one a second) whose readings make the estimate of where the stamps' zero is. */
const READINGS = 30;

export class WebmBatches {
  private stream: string | null = null;
  private demuxer = new WebmDemuxer();
  /** Audio in the stream so far, µs. */
  private samplesUs = 0;
  private readings: number[] = [];

  /**
   * One slice from the page: the batch of packets it completes (null if none, or if the slice
   * belongs to a stream whose start was not seen). Throws WebmError when the bytes are not an Opus WebM stream.
   */
  take(slice: RecordingSlice): AudioBatch | null {
    if (slice.stream !== this.stream) {
      // A page reloaded starts a recorder of its own: a new stream, a new timeline.
      if (slice.seq !== 0) return null;
      this.stream = slice.stream;
      this.demuxer = new WebmDemuxer();
      this.samplesUs = 0;
      this.readings = [];
    }
    const frames = this.demuxer.push(Buffer.from(slice.data, 'base64'));
    if (frames.length === 0) return null;
    const track = this.opusTrack();
    const packets = frames
      .filter((frame) => frame.track === track.number)
      .map((frame) => ({ ...frame, durationUs: (opusPacketSamples(frame.bytes) * 1_000_000) / OPUS_RATE }))
      // A packet whose length cannot be told is not written: the file would lose its timing.
      .filter((packet) => packet.durationUs > 0);
    if (packets.length === 0) return null;

    const timestampsUs: number[] = [];
    let leadUs = Infinity;
    for (const packet of packets) {
      timestampsUs.push(this.samplesUs);
      leadUs = Math.min(leadUs, packet.timeUs - this.samplesUs);
      this.samplesUs += packet.durationUs;
    }
    const last = packets[packets.length - 1];
    this.readings.push(slice.at - (last.timeUs + last.durationUs) / 1000);
    if (this.readings.length > READINGS) this.readings.shift();
    return {
      epochMs: Math.min(...this.readings) + leadUs / 1000,
      timestampsUs,
      data: Buffer.concat(packets.map((p) => p.bytes)).toString('base64'),
      sizes: packets.map((p) => p.bytes.length),
      durationsUs: packets.map((p) => p.durationUs),
      tracks: slice.tracks,
    };
  }

  private opusTrack(): WebmTrack {
    const audio = this.demuxer.tracks.find((t) => t.type === 2 || t.codec.startsWith('A_'));
    if (!audio) throw new WebmError('the stream has no audio track');
    if (audio.codec !== 'A_OPUS') throw new WebmError(`the stream's audio is ${audio.codec}, not Opus`);
    return audio;
  }
}
