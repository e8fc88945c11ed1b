/**
 * Full-text search over saved transcripts, one entry per written segment, in memory (MiniSearch)
 * and rebuilt from this service's store at start: the store holds the truth, so the index survives
 * a restart on both store adapters with one behaviour.
 *
 * Ranking: a result holding more of the query's quoted phrases (as phrases) ranks first; then one
 * holding more distinct query words; then MiniSearch's BM25 score. Words match case- and
 * accent-insensitively. A query word of 4 letters or more that is no word of the index matches
 * as a prefix ("budg" finds "budget"); a whole word matches itself only.
 *
 * Very common words (in more than COMMON_SHARE of all segments, and in at least COMMON_MIN_DOCS)
 * would make MiniSearch score most of the index for every query. As in Elasticsearch's
 * common-terms query, they only rank what the rarer words of the query found. A query made only
 * of common words is answered by a scan of the entries, newest first, which stops as soon as it
 * has `limit` entries holding every word and phrase.
 */
import MiniSearch from 'minisearch';
import type { SearchResult } from '@notetaker/contracts';
import {
  PREFIX_MIN_LENGTH,
  anchorOf,
  collapse,
  holds,
  needlesOf,
  normalize,
  parseQuery,
  snippet,
  type Needles,
  type ParsedQuery,
} from './search-text.js';

export interface IndexedMeeting {
  meetingId: string;
  project: string;
  title: string;
  date: string;
  documentPath: string;
}

export interface IndexedSegment {
  index: number;
  speaker: string;
  text: string;
  timestamp: string;
}

/** What an entry is: a transcript segment, or a message of the meeting's chat (issue #51). */
export type EntryKind = 'segment' | 'chat';

interface Entry {
  meeting: IndexedMeeting;
  kind: EntryKind;
  speaker: string;
  timestamp: string;
  /** Collapsed text, for snippets. */
  text: string;
  /** Folded words of speaker and text (search-text.normalize), for words and phrases. */
  norm: string;
}

export interface SearchIndexOptions {
  commonShare?: number;
  commonMinDocs?: number;
}

interface Candidate {
  entry: Entry;
  tier: number;
}

/** Fields reach MiniSearch already normalized: it only splits them on spaces. */
const splitWords = (text: string) => text.split(' ');

export class SearchIndex {
  private readonly mini = new MiniSearch<{ id: number; text: string; speaker: string }>({
    fields: ['text', 'speaker'],
    tokenize: splitWords,
    processTerm: (term) => term || null,
    searchOptions: { boost: { text: 2 }, combineWith: 'OR' },
  });
  /** Entries by MiniSearch id, in the order they were indexed (roughly oldest meeting first). */
  private readonly entries: Entry[] = [];
  private readonly meetings = new Map<string, IndexedMeeting>();
  /** Highest segment index indexed per meeting: adding is idempotent. */
  private readonly upTo = new Map<string, number>();
  /** In how many entries each folded word occurs. */
  private readonly documentFrequency = new Map<string, number>();
  private readonly commonShare: number;
  private readonly commonMinDocs: number;

  constructor(options: SearchIndexOptions = {}) {
    this.commonShare = options.commonShare ?? 0.05;
    this.commonMinDocs = options.commonMinDocs ?? 2000;
  }

  get size(): number {
    return this.entries.length;
  }

  indexedUpTo(meetingId: string): number {
    return this.upTo.get(meetingId) ?? -1;
  }

  /** `kind` chat: the meeting's chat messages (their indexes count apart from the segments'). */
  add(meeting: IndexedMeeting, segments: IndexedSegment[], kind: EntryKind = 'segment'): void {
    const key = kind === 'chat' ? `${meeting.meetingId}#chat` : meeting.meetingId;
    const known = this.meetings.get(meeting.meetingId);
    if (known) Object.assign(known, meeting);
    const shared = known ?? meeting;
    this.meetings.set(meeting.meetingId, shared);
    const after = this.indexedUpTo(key);
    const docs = [];
    let highest = after;
    for (const s of segments) {
      if (s.index <= after) continue;
      highest = Math.max(highest, s.index);
      const text = collapse(s.text);
      const speakerWords = normalize(s.speaker);
      const textWords = normalize(text);
      const norm = `${speakerWords}${textWords.slice(1)}`;
      for (const word of new Set(norm.split(' '))) {
        if (word) this.documentFrequency.set(word, (this.documentFrequency.get(word) ?? 0) + 1);
      }
      docs.push({ id: this.entries.length, text: textWords.trim(), speaker: speakerWords.trim() });
      this.entries.push({ meeting: shared, kind, speaker: s.speaker, timestamp: s.timestamp, text, norm });
    }
    if (docs.length) this.mini.addAll(docs);
    this.upTo.set(key, highest);
  }

  search(q: string, options: { project?: string; limit: number }): SearchResult[] {
    const query = parseQuery(q);
    if (query.terms.length === 0) return [];
    const frequency = (term: string) => this.documentFrequency.get(term) ?? 0;
    const isPrefix = (term: string) => term.length >= PREFIX_MIN_LENGTH && frequency(term) === 0;
    const needles = needlesOf(query, isPrefix);
    const threshold = Math.max(this.commonMinDocs, this.commonShare * this.entries.length);
    const rare = query.terms.filter((t) => frequency(t) <= threshold);
    const best = rare.length
      ? this.ranked(query, needles, rare, isPrefix, options)
      : this.scanned(query, needles, options);
    return best.map(({ entry }) => ({
      project: entry.meeting.project,
      meetingId: entry.meeting.meetingId,
      title: entry.meeting.title,
      date: entry.meeting.date,
      documentPath: entry.meeting.documentPath,
      speaker: entry.speaker,
      timestamp: entry.timestamp,
      snippet: snippet(entry.text, anchorOf(entry.text, query, isPrefix)),
      kind: entry.kind,
    }));
  }

  /** Candidates from the rare words by BM25 score, re-ordered by tier (stable within a tier). */
  private ranked(
    query: ParsedQuery,
    needles: Needles,
    rare: string[],
    isPrefix: (term: string) => boolean,
    options: { project?: string; limit: number },
  ): Candidate[] {
    const { project, limit } = options;
    const found = this.mini.search(rare.join(' '), {
      prefix: isPrefix,
      filter: project ? (r) => this.entries[r.id as number].meeting.project === project : undefined,
    });
    // MiniSearch says which rare words each result holds; only phrases and common words are looked up.
    const common = { phrases: needles.phrases, words: needles.words.filter((_, i) => !rare.includes(query.terms[i])) };
    const tiers = new TierBuckets(limit);
    for (const r of found) {
      const entry = this.entries[r.id as number];
      const { phrases, words } = holds(entry.norm, common);
      tiers.offer(entry, phrases, r.queryTerms.length + words, query);
    }
    return tiers.best();
  }

  /** Only common words: newest first, stopping once `limit` entries hold the whole query. */
  private scanned(query: ParsedQuery, needles: Needles, options: { project?: string; limit: number }): Candidate[] {
    const { project, limit } = options;
    const tiers = new TierBuckets(limit);
    const top = tierOf(needles.phrases.length, needles.words.length, query);
    for (let i = this.entries.length - 1; i >= 0 && tiers.count(top) < limit; i--) {
      const entry = this.entries[i];
      if (project && entry.meeting.project !== project) continue;
      const { phrases, words } = holds(entry.norm, needles);
      tiers.offer(entry, phrases, words, query);
    }
    return tiers.best();
  }
}

function tierOf(phrases: number, words: number, query: ParsedQuery): number {
  return phrases * (query.terms.length + 1) + words;
}

/** Candidates by tier, each tier in the order offered, at most `limit` kept per tier. */
class TierBuckets {
  private readonly tiers = new Map<number, Candidate[]>();

  constructor(private readonly limit: number) {}

  count(tier: number): number {
    return this.tiers.get(tier)?.length ?? 0;
  }

  offer(entry: Entry, phrases: number, words: number, query: ParsedQuery): void {
    if (words === 0) return;
    const tier = tierOf(phrases, words, query);
    let list = this.tiers.get(tier);
    if (!list) this.tiers.set(tier, (list = []));
    if (list.length < this.limit) list.push({ entry, tier });
  }

  best(): Candidate[] {
    const best: Candidate[] = [];
    for (const tier of [...this.tiers.keys()].sort((a, b) => b - a)) {
      for (const c of this.tiers.get(tier)!) {
        if (best.length === this.limit) return best;
        best.push(c);
      }
    }
    return best;
  }
}
