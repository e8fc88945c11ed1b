/**
 * A streaming WebM (Matroska) demuxer, as small as the page's MediaRecorder output needs: the
 * bytes arrive in slices cut anywhere, and each complete block comes out as a frame with its time.
 * Only what that takes is read (EBML's variable-size integers, the Segment / Tracks / Cluster
 * structure, SimpleBlock and Block); everything else is skipped by its size. Chromium writes the
 * Segment and its Clusters with an unknown size (it streams), so those are read by their
 * children: a Cluster lasts until the next one.
 */

/** One frame of the stream: for Opus, one packet. */
export interface WebmFrame {
  /** The track's number in the stream. */
  track: number;
  /** Microseconds on the stream's timeline (cluster timecode + block offset, scaled). */
  timeUs: number;
  bytes: Buffer;
}

export interface WebmTrack {
  number: number;
  /** Matroska's codec id: `A_OPUS`, `V_VP8`... */
  codec: string;
  /** 1 video, 2 audio. */
  type: number;
}

export class WebmError extends Error {}

const ID = {
  EBML: 0x1a45dfa3,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimecodeScale: 0x2ad7b1,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  CodecID: 0x86,
  Cluster: 0x1f43b675,
  Timecode: 0xe7,
  SimpleBlock: 0xa3,
  BlockGroup: 0xa0,
  Block: 0xa1,
} as const;

/** Read by their children, whatever their size says (or when it is unknown). */
const MASTERS = new Set<number>([ID.Segment, ID.Info, ID.Tracks, ID.TrackEntry, ID.Cluster, ID.BlockGroup]);
/** The elements whose content is read; any other is skipped. */
const READ = new Set<number>([
  ID.TimecodeScale,
  ID.TrackNumber,
  ID.TrackType,
  ID.CodecID,
  ID.Timecode,
  ID.SimpleBlock,
  ID.Block,
]);
/** An element read whole larger than this is not from an audio recorder. */
const MAX_READ_BYTES = 1 << 20;
/** Nor is any other element (but the Segment and Clusters, read by their children) larger than this. */
const MAX_SKIP_BYTES = 16 << 20;
const DEFAULT_TIMECODE_SCALE_NS = 1_000_000;

/** A variable-size integer at `at`: its length and value (the length marker removed), or null if incomplete. */
function vint(
  bytes: Buffer,
  at: number,
  keepMarker: boolean,
): { length: number; value: number; unknown: boolean } | null {
  if (at >= bytes.length) return null;
  const first = bytes[at];
  if (first === 0) throw new WebmError(`invalid EBML integer at byte ${at}`);
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i];
    allOnes &&= bytes[at + i] === 0xff;
  }
  return { length, value, unknown: !keepMarker && allOnes };
}

function readUint(bytes: Buffer): number {
  let value = 0;
  for (const byte of bytes) value = value * 256 + byte;
  return value;
}

export class WebmDemuxer {
  /** Bytes received and not consumed yet. */
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of a skipped element still to come. */
  private skipping = 0;
  private started = false;
  private timecodeScaleNs = DEFAULT_TIMECODE_SCALE_NS;
  private clusterTimecode: number | null = null;
  private readonly trackList: WebmTrack[] = [];

  /** The tracks the stream declared so far. */
  get tracks(): readonly WebmTrack[] {
    return this.trackList;
  }

  /** The next slice of the stream; the frames it completes. Throws WebmError on bytes that are not WebM. */
  push(slice: Buffer): WebmFrame[] {
    const frames: WebmFrame[] = [];
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, slice]) : slice;
    if (this.skipping > 0) {
      const skipped = Math.min(this.skipping, bytes.length);
      this.skipping -= skipped;
      bytes = bytes.subarray(skipped);
    }
    let at = 0;
    for (;;) {
      const id = vint(bytes, at, true);
      const size = id && vint(bytes, at + id.length, false);
      if (!id || !size) break;
      if (!this.started && id.value !== ID.EBML) throw new WebmError('the stream does not start with an EBML header');
      if (id.length > 4) throw new WebmError(`an element id of ${id.length} bytes at byte ${at}`);
      this.started = true;
      const bodyAt = at + id.length + size.length;
      if (MASTERS.has(id.value)) {
        if (id.value === ID.TrackEntry) this.trackList.push({ number: 0, codec: '', type: 0 });
        if (id.value === ID.Cluster) this.clusterTimecode = null;
        at = bodyAt;
        continue;
      }
      if (size.unknown) throw new WebmError(`element 0x${id.value.toString(16)} has an unknown size`);
      if (size.value > MAX_SKIP_BYTES) throw new WebmError(`element 0x${id.value.toString(16)} of ${size.value} bytes`);
      if (!READ.has(id.value)) {
        if (bodyAt + size.value > bytes.length) {
          this.skipping = bodyAt + size.value - bytes.length;
          at = bytes.length;
          break;
        }
        at = bodyAt + size.value;
        continue;
      }
      if (size.value > MAX_READ_BYTES) throw new WebmError(`element 0x${id.value.toString(16)} of ${size.value} bytes`);
      if (bodyAt + size.value > bytes.length) break;
      const body = bytes.subarray(bodyAt, bodyAt + size.value);
      at = bodyAt + size.value;
      const frame = this.element(id.value, body);
      if (frame) frames.push(frame);
    }
    // A copy: the slice's buffer is not kept alive by the few bytes of an element cut in two.
    this.pending = Buffer.from(bytes.subarray(at));
    return frames;
  }

  private element(id: number, body: Buffer): WebmFrame | null {
    const track = this.trackList.at(-1);
    switch (id) {
      case ID.TimecodeScale:
        this.timecodeScaleNs = readUint(body);
        return null;
      case ID.TrackNumber:
        if (track) track.number = readUint(body);
        return null;
      case ID.TrackType:
        if (track) track.type = readUint(body);
        return null;
      case ID.CodecID:
        if (track) track.codec = body.toString('latin1').replace(/\0+$/, '');
        return null;
      case ID.Timecode:
        this.clusterTimecode = readUint(body);
        return null;
      default:
        return this.block(body);
    }
  }

  /** A SimpleBlock or Block: track number, 16-bit signed offset from the cluster's timecode, flags, the frame. */
  private block(body: Buffer): WebmFrame {
    const track = vint(body, 0, false);
    if (!track || body.length < track.length + 3) throw new WebmError('a block too short for its header');
    if (this.clusterTimecode === null) throw new WebmError('a block before its cluster timecode');
    const flags = body[track.length + 2];
    // Chromium's MediaRecorder puts one frame in a block; laced blocks (several frames) are not read.
    if (flags & 0x06) throw new WebmError('a laced block (several frames in one): not supported');
    const offset = body.readInt16BE(track.length);
    const ticks = this.clusterTimecode + offset;
    return {
      track: track.value,
      timeUs: (ticks * this.timecodeScaleNs) / 1000,
      bytes: body.subarray(track.length + 3),
    };
  }
}
