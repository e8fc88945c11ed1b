/**
 * A meeting-history entry (docs/api/reference.md#projects) from a document's front matter,
 * falling back field by field when a value is missing or malformed: the title from the file name, the date from the file's
 * modification time, status `completed`, no participants, meetingId `""`.
 */
import type { ProjectMeeting } from '@notetaker/contracts';

const DATE_PREFIX =
  /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}(st|nd|rd|th) - /;

/** `November 21st - Weekly sync (2).md` -> `Weekly sync (2)`. */
export function titleFromFileName(filename: string): string {
  const stem = filename.replace(/\.md$/i, '');
  return stem.replace(DATE_PREFIX, '') || stem;
}

function isoDate(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

export function entryFrom(filename: string, front: Record<string, unknown> | null, mtime: Date): ProjectMeeting {
  const fm = front ?? {};
  const status = fm.status === 'in_progress' || fm.status === 'completed' ? fm.status : 'completed';
  return {
    filename,
    title: text(fm.title) ?? titleFromFileName(filename),
    date: isoDate(fm.date) ?? mtime.toISOString(),
    meetingId: text(fm.meetingId) ?? '',
    status,
    participants: Array.isArray(fm.participants)
      ? fm.participants.map(text).filter((p): p is string => p !== null)
      : [],
  };
}

/** Newest first; the file name breaks ties so the order is stable. */
export function newestFirst(a: ProjectMeeting, b: ProjectMeeting): number {
  if (a.date !== b.date) return a.date < b.date ? 1 : -1;
  return a.filename < b.filename ? 1 : a.filename > b.filename ? -1 : 0;
}
