/** Small helpers that drive transcript-store the way a meeting's actor does, over the bus. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { Harness } from './harness.js';

export function newMeetingId(): string {
  const suffix = crypto
    .randomBytes(8)
    .toString('hex')
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 12);
  return `meeting_${Date.now()}_${suffix}`;
}

export interface OpenOptions {
  meetingId?: string;
  project?: string;
  title?: string | null;
  platform?: 'google_meet' | 'teams';
  startedAt?: string;
  saveTranscript?: boolean;
  language?: string | null;
}

export async function openMeeting(h: Harness, options: OpenOptions = {}) {
  const meetingId = options.meetingId ?? newMeetingId();
  const startedAt = options.startedAt ?? '2024-11-21T10:00:00.000Z';
  const { documentPath } = await h.request<{ documentPath: string | null }>('open', {
    meetingId,
    project: options.project ?? 'api',
    title: options.title === undefined ? 'Weekly sync' : options.title,
    platform: options.platform ?? 'google_meet',
    startedAt,
    saveTranscript: options.saveTranscript ?? true,
    language: options.language ?? null,
  });
  return { meetingId, documentPath, startedAt };
}

export function segmentAt(startedAt: string, index: number, text: string, speaker = 'Alice') {
  return { speaker, text, timestamp: new Date(Date.parse(startedAt) + index * 2000).toISOString() };
}

export async function appendAll(
  h: Harness,
  meeting: { meetingId: string; startedAt: string },
  texts: Array<string | { speaker: string; text: string }>,
  from = 0,
) {
  for (const [i, item] of texts.entries()) {
    const { speaker, text } = typeof item === 'string' ? { speaker: 'Alice', text: item } : item;
    await h.request('append', {
      meetingId: meeting.meetingId,
      index: from + i,
      segment: segmentAt(meeting.startedAt, from + i, text, speaker),
    });
  }
}

export type Saved = { documentPath: string; segmentsWritten: number; totalSegments: number } | null;

export function flush(
  h: Harness,
  meetingId: string,
  status: 'in_progress' | 'completed' = 'in_progress',
  participants: string[] = [],
  signedInAs: string | null = null,
): Promise<Saved> {
  return h.request<Saved>('flush', { meetingId, status, participants, signedInAs });
}

export function readDocument(h: Harness, documentPath: string): string {
  return fs.readFileSync(path.join(h.contentRoot, documentPath), 'utf8');
}

/** The front matter of a document, parsed by the YAML library (what any reader would do). */
export function frontMatterOf(content: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(content);
  if (!match) throw new Error(`no front matter in:\n${content.slice(0, 200)}`);
  return parse(match[1]) as Record<string, unknown>;
}
