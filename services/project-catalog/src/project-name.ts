/**
 * A project's display name: the `label` (or `name`) of its Docusaurus-style category file
 * (`_category_.json`, `_category_.yml` or `_category_.yaml` in the project folder) when it has
 * one, else derived from the id: `weekly-sync_notes` -> `Weekly Sync Notes`.
 */
import fs from 'node:fs/promises';
import { parse } from 'yaml';

export const METADATA_FILES = ['_category_.json', '_category_.yml', '_category_.yaml'];
const MAX_METADATA_BYTES = 64 * 1024;
const MAX_NAME_CHARS = 200;

export function nameFromId(id: string): string {
  return id
    .split(/[-_]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

/** The name in a metadata file, or null when it has none that is usable. */
export async function nameFromMetadata(file: string): Promise<string | null> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_METADATA_BYTES) return null;
    // JSON is YAML, so one parser reads all three.
    const value: unknown = parse(await fs.readFile(file, 'utf8'), { maxAliasCount: 100 });
    if (value === null || typeof value !== 'object') return null;
    const { label, name } = value as Record<string, unknown>;
    const chosen = typeof label === 'string' && label.trim() ? label : name;
    if (typeof chosen !== 'string' || !chosen.trim()) return null;
    return chosen.trim().replace(/\s+/g, ' ').slice(0, MAX_NAME_CHARS);
  } catch {
    return null;
  }
}
