/**
 * Recording bytes for the storage tests: each byte depends on its position, so a chunk stored
 * twice, out of order or at the wrong offset shows up as a mismatch, not as plausible audio.
 */

/** Bytes [start, start + length) of the test recording. */
export function recordingBytes(start: number, length: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i++) {
    const p = start + i;
    out[i] = (Math.imul(p, 2654435761) >>> 24) ^ (p & 0xff);
  }
  return out;
}

/** Chunk sizes from `min` to `max` bytes (varied, repeatable) adding up to exactly `total`. */
export function chunkSizes(total: number, min: number, max: number): number[] {
  const sizes: number[] = [];
  let left = total;
  for (let i = 0; left > 0; i++) {
    const size = Math.min(left, min + ((i * 7919) % (max - min + 1)));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** Everything a readable stream gives, as one Buffer. */
export async function readAll(stream: AsyncIterable<Buffer | Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}
