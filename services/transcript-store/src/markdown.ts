/**
 * The transcript document: YAML front matter (written by the `yaml` library, never by string
 * interpolation, so any title round-trips exactly), a heading, then one paragraph per segment:
 *
 *   **Alice** (00:01:23): What we decided last week...
 *
 * The time is the offset from the meeting's start, which stays readable across midnight and time
 * zones; the exact UTC timestamps stay in the store and in the transcript endpoint.
 */
import { stringify } from 'yaml';
import type { TranscriptSegment } from '@notetaker/contracts';

export interface FrontMatter {
  title: string;
  meetingId: string;
  date: string;
  status: 'in_progress' | 'completed';
  participants: string[];
  platform: string;
  project: string;
}

export function renderFrontMatter(meta: FrontMatter): string {
  // Field order as SPEC lists them. Every string value double-quoted, on one line, with escapes:
  // plain, single-quoted and block styles fold a value over several lines, and the library's
  // folded form does not read back every string exactly (e.g. a space before a newline).
  const yaml = stringify(
    {
      title: meta.title,
      meetingId: meta.meetingId,
      date: meta.date,
      status: meta.status,
      participants: meta.participants,
      platform: meta.platform,
      project: meta.project,
    },
    {
      defaultStringType: 'QUOTE_DOUBLE',
      defaultKeyType: 'PLAIN',
      blockQuote: false,
      lineWidth: 0,
      doubleQuotedMinMultiLineLength: Number.MAX_SAFE_INTEGER,
    },
  );
  return `---\n${yaml}---\n`;
}

/** The part after the front matter that does not depend on the segments. */
export function renderHeading(title: string): string {
  return `\n# ${escapeInline(oneLine(title))}\n\n`;
}

/**
 * One segment's paragraph. `startMs` is Date.parse(startedAt), parsed once per document: a flush
 * after a restart renders every segment again, and 10,000 of them must stay well under 50 ms.
 */
export function renderSegment(segment: TranscriptSegment, startMs: number): string {
  const speaker = escapeInline(oneLine(segment.speaker)) || 'Unknown speaker';
  const text = escapeInline(oneLine(segment.text));
  return `**${speaker}** (${offset(Date.parse(segment.timestamp) - startMs)}): ${text}\n\n`;
}

/** `hh:mm:ss` since the start; a timestamp before the start (clock skew) shows as 00:00:00. */
export function offset(sinceStartMs: number): string {
  const total = Math.floor(Math.max(0, sinceStartMs || 0) / 1000);
  const pad = (n: number) => (n < 10 ? `0${n}` : String(n));
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}`;
}

// C0 and C1 control characters (Unicode Cc), line and paragraph separators, and white space.
const BREAKS = /[\x00-\x1f\x7f-\x9f\u2028\u2029\s]+/g;
const NEEDS_CLEANING = /[\x00-\x1f\x7f-\x9f\u2028\u2029]|\s\s|^\s|\s$/;

/** Captions are one line; a stray newline or control character must not start a markdown block. */
function oneLine(value: string): string {
  return NEEDS_CLEANING.test(value) ? value.replace(BREAKS, ' ').trim() : value;
}

// Characters that would change how a paragraph renders (emphasis, links, code, HTML, MDX
// expressions). CommonMark shows a backslash-escaped punctuation character as itself.
const ACTIVE = /[\\`*_[\]<>{}|#~]/g;

function escapeInline(value: string): string {
  return value.replace(ACTIVE, '\\$&');
}
