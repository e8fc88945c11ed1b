/**
 * Reading a transcript document's front matter, written by transcript-store or by hand. Only the
 * head of the file is read; anything that is not a well-formed YAML mapping between `---` lines
 * is "no front matter", never an error: the listing shows what can be read.
 */
import fs from 'node:fs/promises';
import { parse } from 'yaml';

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

/** The mapping between the opening `---` line and the next `---` (or `...`) line, or null. */
export function parseFrontMatter(text: string): Record<string, unknown> | null {
  const lines = text.replace(/^\ufeff/, '').split('\n');
  if (lines[0]?.replace(/\r$/, '').trimEnd() !== '---') return null;
  const end = lines.findIndex((line, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(line.replace(/\r$/, '')));
  if (end < 0) return null;
  try {
    // The library's own guards apply: alias expansion is capped, so a "billion laughs" cannot blow up.
    const value: unknown = parse(lines.slice(1, end).join('\n'), { maxAliasCount: 100 });
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
