/**
 * Opus in Ogg (RFC 3533, RFC 7845), written a page at a time. Ogg suits a recording that must
 * survive its writer: every page stands alone (capture pattern, granule position, checksum), so a
 * file cut after any page plays up to there, and a player seeks in it by bisection over HTTP
 * Range requests without an index at the end.
 */

export const OPUS_RATE = 48_000;
/** Samples the decoder drops at the start: libopus's encoder delay at 48 kHz (what Chromium's encoder uses). */
const PRE_SKIP = 312;
/** A 20 ms mono CELT frame that decodes to silence: fills a gap in the timeline. */
export const SILENT_PACKET = Buffer.from([0xf8, 0xff, 0xfe]);
export const SILENT_PACKET_SAMPLES = 960;

/** Frame length in 48 kHz samples by the TOC byte's configuration (RFC 6716, 3.1): SILK, hybrid, CELT. */
const FRAME_SAMPLES = [
  ...[0, 1, 2].flatMap(() => [480, 960, 1920, 2880]),
  ...[0, 1].flatMap(() => [480, 960]),
  ...[0, 1, 2, 3].flatMap(() => [120, 240, 480, 960]),
];

/** How long an Opus packet lasts, in 48 kHz samples, from its TOC byte (and frame count byte): 0 if it is malformed. */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length === 0) return 0;
  const frame = FRAME_SAMPLES[packet[0] >> 3];
  const code = packet[0] & 0x03;
  if (code === 0) return frame;
  if (code !== 3) return 2 * frame;
  return packet.length < 2 ? 0 : (packet[1] & 0x3f) * frame;
}

export interface OpusPacket {
  bytes: Buffer;
  /** Its length in 48 kHz samples. */
  samples: number;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function crc32(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]) >>> 0;
  return crc;
}

const BOS = 0x02;

const PAGE_HEADER = 27;

/** Where a writer's stream is: its next page's number and its granule position. */
export interface WriterMark {
  sequence: number;
  granule: number;
}

/**
 * The length of the Ogg page that starts at `at`, or 0 when `bytes` ends before that page does (a
 * write cut short). Throws when no page starts there: the bytes are not what this writer wrote.
 */
export function oggPageLength(bytes: Buffer, at: number): number {
  if (bytes.length - at < PAGE_HEADER) return 0;
  if (bytes.toString('latin1', at, at + 4) !== 'OggS') throw new Error(`no Ogg page at byte ${at}`);
  const segments = bytes[at + 26];
  if (bytes.length - at < PAGE_HEADER + segments) return 0;
  let length = PAGE_HEADER + segments;
  for (let i = 0; i < segments; i++) length += bytes[at + PAGE_HEADER + i];
  return bytes.length - at >= length ? length : 0;
}

/** Samples of audio up to the end of the page at `at` (its granule position, after the pre-skip). */
export function oggPageSamples(bytes: Buffer, at: number): number {
  return Math.max(0, Number(bytes.readBigUInt64LE(at + 6)) - PRE_SKIP);
}

/** The whole pages at the start of `bytes`, up to `maxBytes`: where they end, and the samples up to there. */
export function wholePages(bytes: Buffer, maxBytes = bytes.length): { length: number; samples: number } {
  let length = 0;
  let samples = 0;
  for (;;) {
    const page = oggPageLength(bytes, length);
    if (page === 0 || length + page > maxBytes) return { length, samples };
    samples = oggPageSamples(bytes, length);
    length += page;
  }
}

export class OggOpusWriter {
  private sequence = 0;
  /** Samples written so far, pre-skip included: the granule position of the last page. */
  private granule = 0;

  constructor(private readonly serial: number) {}

  /** Samples of audio written, after the decoder's pre-skip. */
  get samples(): number {
    return Math.max(0, this.granule - PRE_SKIP);
  }

  /** Where the stream is: pages made after this and never stored are undone by `rewind`. */
  mark(): WriterMark {
    return { sequence: this.sequence, granule: this.granule };
  }

  /** Back to `mark`: the pages made since were not stored, so the next ones follow on from it. */
  rewind(mark: WriterMark): void {
    this.sequence = mark.sequence;
    this.granule = mark.granule;
  }

  /** The two header pages: identification (mono, 48 kHz) and comments. */
  headers(vendor = 'notetaker'): Buffer {
    const head = Buffer.alloc(19);
    head.write('OpusHead', 0, 'latin1');
    head.writeUInt8(1, 8); // version
    head.writeUInt8(1, 9); // channels
    head.writeUInt16LE(PRE_SKIP, 10);
    head.writeUInt32LE(OPUS_RATE, 12);
    head.writeInt16LE(0, 16); // output gain
    head.writeUInt8(0, 18); // mapping family: mono/stereo
    const vendorBytes = Buffer.from(vendor, 'utf8');
    const tags = Buffer.alloc(8 + 4 + vendorBytes.length + 4);
    tags.write('OpusTags', 0, 'latin1');
    tags.writeUInt32LE(vendorBytes.length, 8);
    vendorBytes.copy(tags, 12);
    tags.writeUInt32LE(0, 12 + vendorBytes.length);
    return Buffer.concat([this.page([head], 0, BOS), this.page([tags], 0, 0)]);
  }

  /** Pages holding these packets, in order (a page holds whole packets, at most 255 lacing values). */
  pages(packets: OpusPacket[]): Buffer {
    const out: Buffer[] = [];
    let batch: Buffer[] = [];
    let lacing = 0;
    for (const packet of packets) {
      const needs = Math.floor(packet.bytes.length / 255) + 1;
      if (lacing + needs > 255 && batch.length > 0) {
        out.push(this.page(batch, this.granule, 0));
        batch = [];
        lacing = 0;
      }
      batch.push(packet.bytes);
      lacing += needs;
      this.granule += packet.samples;
    }
    if (batch.length > 0) out.push(this.page(batch, this.granule, 0));
    return Buffer.concat(out);
  }

  private page(packets: Buffer[], granule: number, flags: number): Buffer {
    const segments: number[] = [];
    for (const p of packets) {
      for (let left = p.length; ; left -= 255) {
        segments.push(Math.min(left, 255));
        if (left < 255) break;
      }
    }
    const header = Buffer.alloc(27 + segments.length);
    header.write('OggS', 0, 'latin1');
    header.writeUInt8(0, 4);
    header.writeUInt8(flags, 5);
    header.writeBigUInt64LE(BigInt(granule), 6);
    header.writeUInt32LE(this.serial, 14);
    header.writeUInt32LE(this.sequence++, 18);
    header.writeUInt32LE(0, 22);
    header.writeUInt8(segments.length, 26);
    Buffer.from(segments).copy(header, 27);
    const page = Buffer.concat([header, ...packets]);
    page.writeUInt32LE(crc32(page), 22);
    return page;
  }
}
