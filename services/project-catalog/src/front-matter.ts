/**
 * Reading a transcript document's front matter, written by transcript-store or by hand. Only the
 * head of the file is read; anything that is not a well-formed YAML mapping between `---` lines
 * is "no front matter", never an error: the listing shows what can be read.
 */
import fs from 'node:fs/promises';
import { splitFrontMatter } from '@notetaker/front-matter';

/** Front matter is at the top and small; a file without a closing line within this is broken. */
export const HEAD_BYTES = 64 * 1024;

export async function readHead(file: string): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The front matter's mapping, or null when there is none or it is not a mapping. */
export function parseFrontMatter(text: string): Record<string, unknown> | null {
  const front = splitFrontMatter(text);
  return front.kind === 'mapping' ? front.data : null;
}
