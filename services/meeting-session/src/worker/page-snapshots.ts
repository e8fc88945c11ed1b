/**
 * What a page looked like, written for whoever updates the selectors or has to see a wall the bot
 * met: the structure as the page script took it (no text, no class names, no people's names) in
 * DATA_DIR/caption-snapshots/<time>_<meetingId>_<what>.json, and, where there is one, a PNG
 * screenshot beside it (`<same name>.png`). A screenshot shows the page's text as it is, so both
 * are written 0600. The newest MAX_SNAPSHOTS are kept, with their screenshots.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Platform } from '@notetaker/contracts';
import type { SnapshotNode } from '../drivers/driver.js';

const MAX_SNAPSHOTS = 50;

export interface PageSnapshot {
  meetingId: string;
  platform: Platform;
  /** Why it was taken: a warning raised (`{warning}`) or a failure (`{reason}`); it also names the file. */
  cause: { warning: string } | { reason: string };
  /** What was seen, as the log line says it. */
  seen: string;
  nodes: SnapshotNode[];
  screenshot?: Uint8Array;
}

/** Writes the snapshot (and its screenshot) under `dir`; the files' paths. */
export async function writePageSnapshot(
  dir: string,
  { meetingId, platform, cause, seen, nodes, screenshot }: PageSnapshot,
): Promise<{ snapshot: string; screenshot: string | null }> {
  await fs.mkdir(dir, { recursive: true });
  const at = new Date().toISOString();
  const what = 'warning' in cause ? cause.warning : cause.reason;
  const file = path.join(dir, `${at.replace(/[:.]/g, '-')}_${meetingId}_${what}.json`);
  const image = screenshot ? file.replace(/\.json$/, '.png') : null;
  if (image && screenshot) await fs.writeFile(image, screenshot, { mode: 0o600 });
  const body = { meetingId, platform, ...cause, seen, at, screenshot: image, nodes };
  await fs.writeFile(file, `${JSON.stringify(body, null, 1)}\n`, { mode: 0o600 });
  await prune(dir);
  return { snapshot: file, screenshot: image };
}

/** Keeps the newest MAX_SNAPSHOTS (names start with their time, so they sort by age). */
async function prune(dir: string): Promise<void> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  for (const old of files.slice(0, Math.max(0, files.length - MAX_SNAPSHOTS))) {
    await fs.rm(path.join(dir, old), { force: true });
    await fs.rm(path.join(dir, old.replace(/\.json$/, '.png')), { force: true });
  }
}
