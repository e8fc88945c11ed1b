/**
 * Where a transcript document lives, relative to CONTENT_ROOT:
 * `deployed-md-files/docs/<project>/meetings/<Month> <ordinal day> - <title>.md`
 * (docs/api/reference.md#meetings).
 * Nothing from outside reaches a path unchecked: the project id is allowlisted by regex, the title
 * is reduced to a safe file-name part, and every resolved path is checked to stay inside the root.
 */
import path from 'node:path';
import { DOCS_DIR, PLATFORM_NAMES, PROJECT_ID, errors, type Platform } from '@notetaker/contracts';

export const MEETINGS_DIR = 'meetings';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 1st 2nd 3rd 4th ... 11th 12th 13th ... 21st 22nd 23rd ... 31st */
export function ordinal(day: number): string {
  const lastTwo = day % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return `${day}th`;
  const suffix = ({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[day % 10] ?? 'th';
  return `${day}${suffix}`;
}

/** `November 21st`, from the meeting's start in UTC. */
export function datePart(startedAt: string): string {
  const date = new Date(startedAt);
  if (Number.isNaN(date.getTime())) throw errors.badRequest('startedAt must be an ISO 8601 timestamp', 'startedAt');
  return `${MONTHS[date.getUTCMonth()]} ${ordinal(date.getUTCDate())}`;
}

/** The title of a meeting started without one: names the platform, e.g. `Google Meet meeting`. */
export function defaultTitle(platform: Platform): string {
  return `${PLATFORM_NAMES[platform]} meeting`;
}

/** Longest title part of a file name: by characters for readers, by bytes for file systems (255). */
export const MAX_TITLE_CHARS = 100;
export const MAX_TITLE_BYTES = 150;

// Path separators and the characters Windows refuses; a synced or downloaded copy must work there too.
const FORBIDDEN = /[/\\:*?"<>|]/g;
// Control characters, line/paragraph separators, and bidi overrides that could disguise a name.
const INVISIBLE = /[\p{Cc}\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * The title reduced to a safe file-name part, or null when nothing usable is left (the caller
 * then uses the default title). The front matter keeps the exact title; only the name is reduced.
 */
export function safeTitlePart(title: string | null | undefined): string | null {
  if (!title) return null;
  let part = title.normalize('NFC').replace(INVISIBLE, ' ').replace(FORBIDDEN, ' ');
  part = part.replace(/\s+/g, ' ');
  // Leading dots would hide the file (and `..` must never be a name); trailing dots and spaces are
  // dropped by Windows. Strip until stable: ". . .x" needs more than one pass.
  let previous;
  do {
    previous = part;
    part = part.replace(/^[\s.]+/, '').replace(/[\s.]+$/, '');
  } while (part !== previous);
  part = cap(part);
  if (!part) return null;
  // Windows reserves the stem whatever follows the dot: CON, CON.txt -> CON_, CON_.txt.
  if (RESERVED.test(part)) part = part.replace(/^([^.]*)/, '$1_');
  return part;
}

/** Cuts at a grapheme boundary so no emoji or accent is split, within both caps. */
function cap(part: string): string {
  if (part.length <= MAX_TITLE_CHARS && Buffer.byteLength(part) <= MAX_TITLE_BYTES) return part;
  let out = '';
  let chars = 0;
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(part)) {
    const next = out + segment;
    chars += [...segment].length;
    if (chars > MAX_TITLE_CHARS || Buffer.byteLength(next) > MAX_TITLE_BYTES) break;
    out = next;
  }
  return out.replace(/[\s.]+$/, '');
}

/** `November 21st - Weekly sync.md`, `November 21st - Weekly sync (2).md` for copy 2 and on. */
export function documentFileName(startedAt: string, titlePart: string, copy = 1): string {
  const suffix = copy > 1 ? ` (${copy})` : '';
  return `${datePart(startedAt)} - ${titlePart}${suffix}.md`;
}

export function assertProjectId(project: string): void {
  if (!PROJECT_ID.test(project))
    throw errors.badRequest('project must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', 'project');
}

/** The documentPath (relative, forward slashes, as the API answers it) of a file in a project. */
export function documentPath(project: string, fileName: string): string {
  assertProjectId(project);
  return [DOCS_DIR, project, MEETINGS_DIR, fileName].join('/');
}

/**
 * The absolute path of a documentPath under the content root, refused unless it stays inside
 * `<root>/deployed-md-files/docs/<project>/meetings/` and is a plain file name there.
 */
export function resolveInside(contentRoot: string, relative: string): string {
  const root = path.resolve(contentRoot);
  const docsRoot = path.join(root, DOCS_DIR);
  const absolute = path.resolve(root, relative);
  const inDocs = path.relative(docsRoot, absolute);
  const parts = inDocs.split(path.sep);
  const contained =
    !path.isAbsolute(inDocs) &&
    parts.length === 3 &&
    PROJECT_ID.test(parts[0]) &&
    parts[1] === MEETINGS_DIR &&
    parts[2].endsWith('.md') &&
    !parts[2].startsWith('.') &&
    !parts.includes('..');
  if (!contained || relative.includes('\0')) throw errors.badRequest('Document path escapes the content root');
  return absolute;
}
