/**
 * A streaming WebM (Matroska) demuxer, as small as the page's MediaRecorder output needs: the
 * bytes arrive in slices cut anywhere, and each complete block comes out as a frame with its time.
 * Only what that takes is read (EBML's variable-size integers, the Segment / Tracks / Cluster
 * structure, SimpleBlock and Block); everything else is skipped by its size. Chromium writes the
 * Segment and its Clusters with an unknown size (it streams), so those are read by their
 * children: a Cluster lasts until the next one.
 *
 * Bytes that cannot be read once the stream's header is (a slice mangled on its way, a slice
 * that never came) lose only the cluster they are in: the demuxer looks for the next Cluster
 * (its id, a size, then its Timecode, no earlier than the last one) and reads on from there; the
 * first frame read after carries why (`resumed`). Chromium starts a cluster at every slice, so one
 * bad slice costs that slice. A bad header has nothing to resynchronise on: it is an error.
 */

/** One frame of the stream: for Opus, one packet. */
export interface WebmFrame {
  /** The track's number in the stream. */
  track: number;
  /** Microseconds on the stream's timeline (cluster timecode + block offset, scaled). */
  timeUs: number;
  bytes: Buffer;
  /** The first frame read after bytes that could not be (why): the frames in between are lost. */
  resumed?: string;
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
  SeekHead: 0x114d9b74,
  Info: 0x1549a966,
  TimecodeScale: 0x2ad7b1,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackType: 0x83,
  CodecID: 0x86,
  Cues: 0x1c53bb6b,
  Tags: 0x1254c367,
  Chapters: 0x1043a770,
  Attachments: 0x1941a469,
  Cluster: 0x1f43b675,
  Timecode: 0xe7,
  Position: 0xa7,
  PrevSize: 0xab,
  SilentTracks: 0x5854,
  SilentTrackNumber: 0x58d7,
  SimpleBlock: 0xa3,
  BlockGroup: 0xa0,
  Block: 0xa1,
  BlockDuration: 0x9b,
  ReferenceBlock: 0xfb,
  DiscardPadding: 0x75a2,
  Void: 0xec,
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
/**
 * Once the clusters have begun, only these follow: a cluster's children, the Segment's next
 * child (which ends a cluster of unknown size), or a Void anywhere. Anything else is bytes that
 * are not the stream's.
 */
const IN_CLUSTER = new Set<number>([
  ID.Timecode,
  ID.Position,
  ID.PrevSize,
  ID.SilentTracks,
  ID.SilentTrackNumber,
  ID.SimpleBlock,
  ID.BlockGroup,
  ID.Block,
  ID.BlockDuration,
  ID.ReferenceBlock,
  ID.DiscardPadding,
]);
const SEGMENT_CHILDREN = new Set<number>([
  ID.SeekHead,
  ID.Info,
  ID.Tracks,
  ID.Cues,
  ID.Tags,
  ID.Chapters,
  ID.Attachments,
  ID.Cluster,
]);
/** An element read whole larger than this is not from an audio recorder. */
const MAX_READ_BYTES = 1 << 20;
/**
 * Nor is an element in a cluster larger than this (the largest Opus packet is under 62 KB): a
 * mangled size must not make the demuxer wait on, or skip, the good slices after it.
 */
const MAX_CLUSTER_ELEMENT_BYTES = 64 << 10;
/** Nor is an element in a cluster that is not read (Chromium writes none): a mangled one is not skipped far. */
const MAX_CLUSTER_SKIP_BYTES = 4 << 10;
/** Nor is any other element (but the Segment and Clusters, read by their children) larger than this. */
const MAX_SKIP_BYTES = 16 << 20;
/** A block stamped this much before the one before it is not the stream's (Chromium's stamps only grow). */
const BACKWARDS_US = 1_000_000;
const DEFAULT_TIMECODE_SCALE_NS = 1_000_000;
/** A Cluster's id without its first byte: Chromium cuts its slices just after that byte. */
const CLUSTER_TAIL = Buffer.from([0x43, 0xb6, 0x75]);

interface Vint {
  length: number;
  value: number;
  unknown: boolean;
}

/** A variable-size integer at `at`: its length and value (the length marker removed), or null if incomplete. */
function vint(bytes: Buffer, at: number, keepMarker: boolean): Vint | null {
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

/** What one element gives: where the next starts, and the frame it holds. */
interface Step {
  next: number;
  frame: WebmFrame | null;
  /** The element was a Cluster. */
  cluster?: boolean;
}

export class WebmDemuxer {
  /** Bytes received and not consumed yet. */
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of a skipped element still to come. */
  private skipping = 0;
  private started = false;
  private timecodeScaleNs = DEFAULT_TIMECODE_SCALE_NS;
  private clusterTimecode: number | null = null;
  /** The stream's header was read: a cluster began (after it, bytes lost can be resynchronised). */
  private clustersBegan = false;
  private inCluster = false;
  /** The last block's time: one stamped much earlier is not the stream's. */
  private lastBlockUs = 0;
  /** Why bytes are being dropped, up to the next cluster; null while the stream is read. */
  private lostWhy: string | null = null;
  /** Why the last bytes were dropped, for the next frame read. */
  private resumedWhy: string | null = null;
  private readonly trackList: WebmTrack[] = [];

  /** The tracks the stream declared so far. */
  get tracks(): readonly WebmTrack[] {
    return this.trackList;
  }

  /** Why the stream is not being read now (bytes are dropped up to the next cluster), or null. */
  get lost(): string | null {
    return this.lostWhy;
  }

  /**
   * The next slice of the stream; the frames it completes. Throws WebmError on bytes that are not
   * WebM before a cluster began; after, unreadable bytes are dropped up to the next cluster.
   */
  push(slice: Buffer): WebmFrame[] {
    const frames: Array<{ frame: WebmFrame; end: number }> = [];
    let bytes = this.pending.length > 0 ? Buffer.concat([this.pending, slice]) : slice;
    if (this.skipping > 0) {
      const skipped = Math.min(this.skipping, bytes.length);
      this.skipping -= skipped;
      bytes = bytes.subarray(skipped);
    }
    let at = 0;
    // Where the last cluster read in these bytes has its id's tail: a search for the next one starts after it.
    let tailAt = -1;
    while (at < bytes.length) {
      if (this.lostWhy !== null) {
        const found = this.nextCluster(bytes, at);
        at = found.at;
        if (found.tailAt === null) break;
        // A frame that ran into the cluster found was made of its bytes (an element cut short before it).
        while (frames.length > 0 && frames[frames.length - 1].end > found.tailAt - 1) frames.pop();
        tailAt = found.tailAt;
        this.resumedWhy = this.lostWhy;
        this.lostWhy = null;
        this.inCluster = true;
        this.clusterTimecode = null;
        continue;
      }
      let step: Step | null;
      try {
        step = this.step(bytes, at);
      } catch (error) {
        if (!(error instanceof WebmError) || !this.clustersBegan) throw error;
        this.lose(error.message);
        // The bytes that went wrong may have begun before here (an element whose size was cut).
        at = tailAt + 1;
        continue;
      }
      if (!step) break;
      if (step.cluster) tailAt = at + 1;
      at = step.next;
      if (!step.frame) continue;
      if (this.resumedWhy !== null) step.frame.resumed = this.resumedWhy;
      this.resumedWhy = null;
      frames.push({ frame: step.frame, end: at });
    }
    // A copy: the slice's buffer is not kept alive by the few bytes of an element cut in two.
    this.pending = Buffer.from(bytes.subarray(at));
    return frames.map((f) => f.frame);
  }

  /**
   * Bytes of the stream never came (a slice missing): what is pending is dropped and the stream
   * read again from the next cluster. Throws WebmError before a cluster began (the header is lost).
   */
  resync(why: string): void {
    if (!this.clustersBegan) throw new WebmError(`the stream's header was lost: ${why}`);
    this.pending = Buffer.alloc(0);
    this.lose(why);
  }

  private lose(why: string): void {
    this.lostWhy ??= why;
    this.skipping = 0;
    this.inCluster = false;
  }

  /**
   * Where reading resumes: the Timecode of the next cluster, and where that cluster's id has its
   * tail (its first byte ends the slice before, or what became of it); or, none found yet (tailAt
   * null), the bytes to keep for the next slice (a cluster's start cut by the slice's end).
   */
  private nextCluster(bytes: Buffer, from: number): { at: number; tailAt: number | null } {
    for (let k = bytes.indexOf(CLUSTER_TAIL, from); k >= 0; k = bytes.indexOf(CLUSTER_TAIL, k + 1)) {
      const timecodeAt = this.clusterBody(bytes, k + CLUSTER_TAIL.length);
      if (timecodeAt === null) return { at: k, tailAt: null };
      if (timecodeAt !== false) return { at: timecodeAt, tailAt: k };
    }
    return { at: Math.max(from, bytes.length - (CLUSTER_TAIL.length - 1)), tailAt: null };
  }

  /** After a cluster's id: where its Timecode starts if one comes, false if not, null until more bytes come. */
  private clusterBody(bytes: Buffer, sizeAt: number): number | false | null {
    try {
      const size = vint(bytes, sizeAt, false);
      if (!size) return null;
      const timecodeAt = sizeAt + size.length;
      if (timecodeAt >= bytes.length) return null;
      if (bytes[timecodeAt] !== ID.Timecode) return false;
      const length = vint(bytes, timecodeAt + 1, false);
      if (!length) return null;
      if (length.length !== 1 || length.value < 1 || length.value > 8) return false;
      const valueAt = timecodeAt + 2;
      return valueAt + length.value > bytes.length ? null : timecodeAt;
    } catch {
      return false;
    }
  }

  /** The element at `at`, or null until more bytes come. Throws WebmError on bytes that are not the stream's. */
  private step(bytes: Buffer, at: number): Step | null {
    const id = vint(bytes, at, true);
    const size = id && vint(bytes, at + id.length, false);
    if (!id || !size) return null;
    const name = `element 0x${id.value.toString(16)}`;
    if (!this.started && id.value !== ID.EBML) throw new WebmError('the stream does not start with an EBML header');
    if (id.length > 4) throw new WebmError(`an element id of ${id.length} bytes at byte ${at}`);
    this.started = true;
    if (this.clustersBegan && id.value !== ID.Void) {
      if (SEGMENT_CHILDREN.has(id.value)) this.inCluster = false;
      else if (!this.inCluster || !IN_CLUSTER.has(id.value)) throw new WebmError(`${name} among clusters`);
    }
    const bodyAt = at + id.length + size.length;
    if (MASTERS.has(id.value)) {
      if (id.value === ID.TrackEntry) this.trackList.push({ number: 0, codec: '', type: 0 });
      const cluster = id.value === ID.Cluster;
      if (cluster) {
        this.clustersBegan = true;
        this.inCluster = true;
        this.clusterTimecode = null;
      }
      return { next: bodyAt, frame: null, cluster };
    }
    if (size.unknown) throw new WebmError(`${name} has an unknown size`);
    const read = READ.has(id.value);
    const limit = !this.inCluster ? MAX_SKIP_BYTES : read ? MAX_CLUSTER_ELEMENT_BYTES : MAX_CLUSTER_SKIP_BYTES;
    if (size.value > limit) throw new WebmError(`${name} of ${size.value} bytes`);
    if (!read) {
      if (bodyAt + size.value <= bytes.length) return { next: bodyAt + size.value, frame: null };
      this.skipping = bodyAt + size.value - bytes.length;
      return { next: bytes.length, frame: null };
    }
    if (size.value > MAX_READ_BYTES) throw new WebmError(`${name} of ${size.value} bytes`);
    const body = bytes.subarray(bodyAt, Math.min(bodyAt + size.value, bytes.length));
    const isBlock = id.value === ID.SimpleBlock || id.value === ID.Block;
    // A block's header is checked as soon as it comes: a mangled one is not waited on.
    const header = isBlock ? this.blockHeader(body, size.value) : null;
    if (bodyAt + size.value > bytes.length) return null;
    const next = bodyAt + size.value;
    if (header) {
      this.lastBlockUs = header.timeUs;
      return { next, frame: { track: header.track, timeUs: header.timeUs, bytes: body.subarray(header.length) } };
    }
    this.element(id.value, body);
    return { next, frame: null };
  }

  private element(id: number, body: Buffer): void {
    const track = this.trackList.at(-1);
    switch (id) {
      case ID.TimecodeScale:
        this.timecodeScaleNs = readUint(body);
        return;
      case ID.TrackNumber:
        if (track) track.number = readUint(body);
        return;
      case ID.TrackType:
        if (track) track.type = readUint(body);
        return;
      case ID.CodecID:
        if (track) track.codec = body.toString('latin1').replace(/\0+$/, '');
        return;
      case ID.Timecode:
        this.clusterTimecode = readUint(body);
        // Resumed: the cluster found is trusted (what went wrong before may have been a stamp).
        if (this.resumedWhy !== null) this.lastBlockUs = (this.clusterTimecode * this.timecodeScaleNs) / 1000;
        return;
    }
  }

  /**
   * A SimpleBlock's or Block's header (track number, 16-bit signed offset from the cluster's
   * timecode, flags) from its first bytes, null until they come; `size`: the whole block's.
   */
  private blockHeader(body: Buffer, size: number): { track: number; timeUs: number; length: number } | null {
    const track = vint(body, 0, false);
    if (track && size < track.length + 3) throw new WebmError('a block too short for its header');
    if (!track || body.length < track.length + 3) return null;
    if (this.clusterTimecode === null) throw new WebmError('a block before its cluster timecode');
    if (!this.trackList.some((t) => t.number === track.value)) {
      throw new WebmError(`a block of track ${track.value}, which the stream did not declare`);
    }
    const flags = body[track.length + 2];
    // Chromium's MediaRecorder puts one frame in a block; laced blocks (several frames) are not read.
    if (flags & 0x06) throw new WebmError('a laced block (several frames in one): not supported');
    const ticks = this.clusterTimecode + body.readInt16BE(track.length);
    const timeUs = (ticks * this.timecodeScaleNs) / 1000;
    if (timeUs < this.lastBlockUs - BACKWARDS_US) throw new WebmError('a block stamped before the blocks already read');
    return { track: track.value, timeUs, length: track.length + 3 };
  }
}
