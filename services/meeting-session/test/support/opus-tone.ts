/**
 * Real Opus audio for recording tests that must hear what was stored: a tone encoded by ffmpeg's
 * libopus (Debian's ffmpeg, as the tests decode with) in 20 ms packets, handed over as the page's
 * capture hands over batches (page-capture.ts `AudioBatch`). A high bitrate makes the bytes grow
 * fast enough to fill a small spool within seconds.
 */
import { execFileSync } from 'node:child_process';
import type { AudioBatch } from '../../src/recording/page-capture.js';

const PACKET_US = 20_000;

/** The Opus packets of `seconds` of a 440 Hz tone (mono, 48 kHz), from an Ogg stream ffmpeg wrote. */
export function tonePackets(seconds: number, bitrate = '256k'): Buffer[] {
  const ogg = execFileSync(
    'ffmpeg',
    [
      ...['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=48000:duration=${seconds}`],
      ...['-ac', '1', '-c:a', 'libopus', '-b:a', bitrate, '-vbr', 'off', '-frame_duration', '20', '-f', 'ogg', '-'],
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  // The first two are OpusHead and OpusTags.
  return oggPackets(ogg)
    .slice(2)
    .map((p) => p.packet);
}

/** The packets of an Ogg stream in order, each with the sequence number of the page where it ends. */
export function oggPackets(ogg: Buffer): Array<{ packet: Buffer; page: number }> {
  const packets: Array<{ packet: Buffer; page: number }> = [];
  let partial: Buffer[] = [];
  for (let at = 0; at < ogg.length;) {
    const segments = ogg[at + 26];
    const page = ogg.readUInt32LE(at + 18);
    const lacing = ogg.subarray(at + 27, at + 27 + segments);
    let body = at + 27 + segments;
    for (const size of lacing) {
      partial.push(ogg.subarray(body, body + size));
      body += size;
      // A lacing value under 255 ends a packet; 255 continues it (maybe on the next page).
      if (size < 255) {
        packets.push({ packet: Buffer.concat(partial), page });
        partial = [];
      }
    }
    at = body;
  }
  return packets;
}

/** A source of the tone's batches (at `bitrate`), each `ms` long and ending now, packets taken in order. */
export function toneSource(
  seconds: number,
  bitrate?: string,
): { next(ms?: number): AudioBatch; left(): number; taken(): number } {
  const packets = tonePackets(seconds, bitrate);
  let taken = 0;
  return {
    left: () => packets.length - taken,
    taken: () => taken,
    next(ms = 1000) {
      const count = Math.min(Math.round((ms * 1000) / PACKET_US), packets.length - taken);
      const batch = packets.slice(taken, taken + count);
      taken += count;
      return {
        epochMs: Date.now() - (count * PACKET_US) / 1000,
        timestampsUs: batch.map((_, i) => i * PACKET_US),
        data: Buffer.concat(batch).toString('base64'),
        sizes: batch.map((p) => p.length),
        durationsUs: batch.map(() => PACKET_US),
        tracks: 1,
      };
    },
  };
}

export interface OggPageInfo {
  offset: number;
  sequence: number;
  granule: number;
  length: number;
}

/** The Ogg pages of a file as stored: a duplicated batch repeats page numbers, a lost one skips some. */
export function oggPages(bytes: Buffer): OggPageInfo[] {
  const pages: OggPageInfo[] = [];
  for (let at = 0; at < bytes.length;) {
    if (bytes.toString('latin1', at, at + 4) !== 'OggS') throw new Error(`no Ogg page at byte ${at}`);
    const segments = bytes[at + 26];
    let length = 27 + segments;
    for (let i = 0; i < segments; i++) length += bytes[at + 27 + i];
    pages.push({
      offset: at,
      sequence: bytes.readUInt32LE(at + 18),
      granule: Number(bytes.readBigUInt64LE(at + 6)),
      length,
    });
    at += length;
  }
  return pages;
}
