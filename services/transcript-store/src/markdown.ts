/**
 * The transcript document: YAML front matter (written by the `yaml` library, never by string
 * interpolation, so any title round-trips exactly), a heading, then one paragraph per segment:
 *
 *   **Alice** (00:01:23): What we decided last week...
 *
 * except that a segment continuing the sentence of the one before it (same speaker, the earlier
 * one not ending a sentence) goes on that paragraph: the platform started a new caption block in
 * the middle of a sentence, the reader sees one sentence. The segments themselves stay apart.
 *
 * The time is the offset from the meeting's start, which stays readable across midnight and time
 * zones; the exact UTC timestamps stay in the store and in the transcript endpoint.
 */
import { stringify } from 'yaml';
import type { TranscriptSegment } from '@notetaker/contracts';

/** What a transcript document's front matter says about its meeting. */
export interface DocumentHeader {
  title: string;
  meetingId: string;
  date: string;
  status: 'in_progress' | 'completed';
  participants: string[];
  platform: string;
  project: string;
  /** The caption language asked for at start; left out when null. */
  language?: string | null;
  /** The bot account the bot joined with; left out when null (a guest). */
  signedInAs?: string | null;
  /**
   * The meeting's audio: its download path, and `unavailable` when storage refused part of it
   * (the file misses audio; the transcript does not). Left out when not recorded.
   */
  recording?: { url: string; status: string } | null;
}

export function renderFrontMatter(meta: DocumentHeader): string {
  // The fields the history reads first, in a fixed order. Every string value double-quoted, on
  // one line, with escapes:
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
      // Written only when known, so a document without them reads as before.
      ...(meta.language != null ? { language: meta.language } : {}),
      ...(meta.signedInAs != null ? { signedInAs: meta.signedInAs } : {}),
      ...(meta.recording ? { recording: meta.recording.url, recordingStatus: meta.recording.status } : {}),
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

const PARAGRAPH_END = '\n\n';

/**
 * Ends a sentence: . ? ! … and their CJK (full-width) forms, maybe followed by closing quotes or
 * brackets ("Done." and 「終わり。」 end one; "(see above)" does not).
 */
const SENTENCE_END =
  /[.?!\u2026\u203c\u2047-\u2049\u3002\uff0e\uff1f\uff01\uff61]["'\u2019\u201d\u00bb)\]}\uff09\u300d\u300f\u3011\u3015\u3009\u300b\s]*$/;

/** Whether `segment` goes on with the sentence of `previous`: same speaker, that sentence unfinished. */
export function continues(previous: TranscriptSegment | null | undefined, segment: TranscriptSegment): boolean {
  if (!previous || oneLine(segment.speaker) !== oneLine(previous.speaker) || !oneLine(segment.speaker)) return false;
  if (sourceOf(previous) !== sourceOf(segment) || previous.untranscribed || segment.untranscribed) return false;
  const before = oneLine(previous.text);
  return before !== '' && oneLine(segment.text) !== '' && !SENTENCE_END.test(before);
}

/**
 * What one segment adds at the end of the body: its own paragraph, or, when it continues the
 * sentence of `previous` (the segment before it), its words for that paragraph, which then ends
 * here instead (appendSegments joins them). `startMs` is Date.parse(startedAt), parsed once per
 * document: a flush after a restart renders every segment again, and 10,000 of them must stay well
 * under 50 ms.
 */
export function renderSegment(
  segment: TranscriptSegment,
  startMs: number,
  previous?: TranscriptSegment | null,
): string {
  return sourceNote(segment, previous) + paragraph(segment, startMs, continues(previous, segment));
}

/** Absent on segments from before audio transcription: those are all captions. */
const sourceOf = (segment: TranscriptSegment) => segment.source ?? 'captions';

/**
 * Where the words come from, said only where it changes (and before a first segment from audio):
 * a transcript read from captions alone reads as it always did.
 */
function sourceNote(segment: TranscriptSegment, previous: TranscriptSegment | null | undefined): string {
  const source = sourceOf(segment);
  if (previous ? sourceOf(previous) === source : source === 'captions') return '';
  const from = source === 'audio' ? "the meeting's audio (speech engine)" : "the platform's captions";
  return `_Transcribed from ${from} from here on._${PARAGRAPH_END}`;
}

const UNTRANSCRIBED: Record<NonNullable<TranscriptSegment['untranscribed']>['reason'], string> = {
  engine_unavailable: 'the speech engine did not answer',
  budget_exhausted: "the meeting's audio transcription budget was spent",
};

/** renderSegment, once whether `segment` continues the paragraph before is known (`joined`). */
function paragraph(segment: TranscriptSegment, startMs: number, joined: boolean): string {
  const text = segment.untranscribed
    ? `_[not transcribed until ${offset(Date.parse(segment.untranscribed.until) - startMs)}: ${UNTRANSCRIBED[segment.untranscribed.reason]}]_`
    : escapeInline(oneLine(segment.text));
  if (joined) return ` ${text}${PARAGRAPH_END}`;
  const speaker = escapeInline(oneLine(segment.speaker)) || 'Unknown speaker';
  return `**${speaker}** (${offset(Date.parse(segment.timestamp) - startMs)}): ${text}${PARAGRAPH_END}`;
}

/**
 * `body` (empty, or ending with the paragraph of `previous`) with `segments` after it: each in a
 * paragraph of its own, or on the paragraph before when it continues that sentence.
 */
export function appendSegments(
  body: string,
  segments: readonly TranscriptSegment[],
  startMs: number,
  previous: TranscriptSegment | null,
): string {
  const parts = [body];
  let before = previous;
  for (const segment of segments) {
    const joined = continues(before, segment);
    // The paragraph before stays open: its break gives way to this segment's words.
    if (joined) parts.push(parts.pop()!.slice(0, -PARAGRAPH_END.length));
    parts.push(sourceNote(segment, before), paragraph(segment, startMs, joined));
    before = segment;
  }
  return parts.join('');
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

/** Where the document's chat section starts: after the last paragraph of the transcript. */
export const CHAT_HEADING = '## Chat\n\n';

/**
 * The meeting's chat as the document's last section (issue #51): one list item per message, in
 * order, with who wrote it and when (since the start); the bot's own messages say so.
 */
export function renderChat(
  messages: ReadonlyArray<{ sender: string; text: string; timestamp: string; fromBot: boolean }>,
  startMs: number,
): string {
  if (messages.length === 0) return '';
  const items = messages.map((m) => {
    const sender = escapeInline(oneLine(m.sender)) || 'Unknown sender';
    const bot = m.fromBot ? ' (bot)' : '';
    return `- **${sender}**${bot} (${offset(Date.parse(m.timestamp) - startMs)}): ${escapeInline(oneLine(m.text))}\n`;
  });
  return `${CHAT_HEADING}${items.join('')}\n`;
}
