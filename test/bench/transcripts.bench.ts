/**
 * What transcript documents and search cost, on the real transcript-store (embedded store, memory
 * bus, real files on this machine's disk):
 *
 * 1. flush time of a 10,000-segment document: the first (cold) flush renders every segment from
 *    the store; later flushes during a meeting render only the new ones but rewrite the file;
 * 2. write amplification of a simulated 2-hour meeting (one segment every 2 s, a flush every 10 s,
 *    as meeting-session's default FLUSH_INTERVAL_MS): total bytes written against the final size;
 * 3. search p50/p99 over 100,000 stored segments (100 meetings of 1,000), through the bus, and the
 *    index rebuild time at restart.
 *
 * Targets: flush < 50 ms, search p99 < 50 ms. Figures go to stdout. A full garbage collection
 * runs before each query phase: without it the first queries after ingesting 100,000 segments in
 * half a minute also pay for collecting that ingest (p99 about 100 ms on 2 busy cores).
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  startHarness,
  embeddedStore,
  tempDirs,
  type Harness,
} from '../../services/transcript-store/test/support/harness.js';
import { newMeetingId } from '../../services/transcript-store/test/support/meetings.js';
import { silentLogger } from '@notetaker/observability';
import { Documents } from '../../services/transcript-store/src/documents.js';
import { Indexer } from '../../services/transcript-store/src/indexer.js';
import { Segments } from '../../services/transcript-store/src/segments.js';
import { percentile, summarize } from './stats.js';

/** A full collection between phases (gc() without --expose-gc, which run.ts does not pass). */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

const FLUSH_SEGMENTS = 10_000;
const MEETING_SECONDS = 2 * 60 * 60;
const SEARCH_MEETINGS = 100;
const SEARCH_SEGMENTS_PER_MEETING = 1000;
const QUERIES = 2000;

// ---- a deterministic corpus with a Zipf-like word distribution, as speech has

let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const COMMON = (
  'the to and a of i that you it is we in this so for on have be with not but just like what do ' +
  'are was can they if at all think about there one know yeah right get go our will more would ' +
  'an or then from going some up out how need which when make also people time really see want'
).split(' ');
const SYLLABLES = ['ka', 'lo', 'mi', 'ter', 'van', 'dus', 'pre', 'sol', 'ri', 'ben', 'cor', 'tal', 'né', 'qué', 'zo'];
const VOCABULARY = [
  ...COMMON,
  ...Array.from({ length: 8000 }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(
      '',
    ),
  ),
];
/** Rank r is drawn with probability ~ 1/r. */
function word(): string {
  const r = Math.floor(Math.exp(random() * Math.log(VOCABULARY.length)));
  return VOCABULARY[Math.min(VOCABULARY.length - 1, r - 1)];
}
function sentence(): string {
  return Array.from({ length: 8 + Math.floor(random() * 20) }, word).join(' ');
}

async function appendSegments(h: Harness, meetingId: string, startedAt: string, from: number, count: number) {
  for (let i = from; i < from + count; i++) {
    await h.request('append', {
      meetingId,
      index: i,
      segment: {
        speaker: `Speaker ${i % 5}`,
        text: sentence(),
        timestamp: new Date(Date.parse(startedAt) + i * 2000).toISOString(),
      },
    });
  }
}

async function open(h: Harness, project = 'bench', title = 'Benchmark meeting') {
  const meetingId = newMeetingId();
  const startedAt = '2024-11-21T10:00:00.000Z';
  const { documentPath } = await h.request<{ documentPath: string }>('open', {
    meetingId,
    project,
    title,
    platform: 'google_meet',
    startedAt,
    saveTranscript: true,
  });
  return { meetingId, startedAt, documentPath };
}

const flush = (h: Harness, meetingId: string, status = 'in_progress') =>
  h.request<{ totalSegments: number }>('flush', { meetingId, status, participants: ['Speaker 0', 'Speaker 1'] });

const ms = (n: number) => `${n.toFixed(1)} ms`;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const result = await fn();
  return [result, performance.now() - t0];
}

/** With TRANSCRIPT_FSYNC on (the default): only the final, completed flush is synced to disk. */
async function benchFlush() {
  const h = await startHarness(embeddedStore, tempDirs());
  try {
    const m = await open(h);
    await appendSegments(h, m.meetingId, m.startedAt, 0, FLUSH_SEGMENTS);
    const [, cold] = await timed(() => flush(h, m.meetingId));
    const size = fs.statSync(path.join(h.contentRoot, m.documentPath)).size;
    // During the meeting: 5 new segments (10 s of speech), then a flush of the whole file.
    const warm: number[] = [];
    for (let i = 0; i < 30; i++) {
      await appendSegments(h, m.meetingId, m.startedAt, FLUSH_SEGMENTS + i * 5, 5);
      warm.push((await timed(() => flush(h, m.meetingId)))[1]);
    }
    const sorted = [...warm].sort((a, b) => a - b);
    console.log(
      `  document ${mb(size)}; first flush ${ms(cold)}; ` +
        `flush during the meeting p50 ${ms(percentile(sorted, 50))} p99 ${ms(percentile(sorted, 99))}`,
    );
    // After a restart the rendered body is gone: the next flush continues from the file.
    const restarted = await h.restart();
    await appendSegments(restarted, m.meetingId, m.startedAt, FLUSH_SEGMENTS + 150, 5);
    const [, afterRestart] = await timed(() => flush(restarted, m.meetingId));
    await appendSegments(restarted, m.meetingId, m.startedAt, FLUSH_SEGMENTS + 155, 5);
    const [, final] = await timed(() => flush(restarted, m.meetingId, 'completed'));
    console.log(
      `  first flush after a restart (continues from the file) ${ms(afterRestart)}; ` +
        `final flush (completed, synced to disk) ${ms(final)}`,
    );
    await restarted.dispose();
  } finally {
    await h.dispose();
  }
}

/**
 * A 2-hour meeting: a segment every 2 s. `nextFlushAfter(size)` is the number of seconds until the
 * next flush; every flush rewrites the whole file, so the bytes written add up to the sizes.
 */
async function simulateMeeting(label: string, nextFlushAfter: (size: number) => number) {
  const h = await startHarness(embeddedStore, tempDirs(), { env: { TRANSCRIPT_FSYNC: 'true' } });
  try {
    const m = await open(h);
    const file = path.join(h.contentRoot, m.documentPath);
    let written = 0;
    let flushTime = 0;
    let flushes = 0;
    let appended = 0;
    let size = 0;
    for (let second = 0; second < MEETING_SECONDS;) {
      const next = Math.min(MEETING_SECONDS, second + nextFlushAfter(size));
      const due = Math.floor(next / 2);
      await appendSegments(h, m.meetingId, m.startedAt, appended, due - appended);
      appended = due;
      second = next;
      flushTime += (
        await timed(() => flush(h, m.meetingId, second >= MEETING_SECONDS ? 'completed' : 'in_progress'))
      )[1];
      flushes++;
      size = fs.statSync(file).size;
      written += size;
    }
    console.log(
      `  ${label}: ${flushes} flushes, ${appended} segments, final document ${mb(size)}; ${mb(written)} written ` +
        `= ${(written / size).toFixed(0)}x the final size (${(written / MEETING_SECONDS / 1024).toFixed(1)} KB/s); ` +
        `flush time ${ms(flushTime)} in all, ${ms(flushTime / flushes)} on average`,
    );
  } finally {
    await h.dispose();
  }
}

async function benchAmplification() {
  await simulateMeeting('flush every 10 s (FLUSH_INTERVAL_MS default)', () => 10);
  // For comparison only: an interval that grows with the document, so at most 4 KB/s is rewritten.
  await simulateMeeting('every max(10 s, size / 4 KB/s)       ', (size) => Math.max(10, Math.ceil(size / 4096)));
}

async function runQueries(h: Harness, texts: string[], label: string) {
  console.log(`  ${label}:`);
  // Queries people type: content words (not the 100 most common), pairs, triples, quoted phrases.
  const content = () => VOCABULARY[COMMON.length + Math.floor(random() * 2000)];
  const kinds: Record<string, () => string> = {
    'one word': () => content(),
    'two words': () => `${content()} ${content()}`,
    'three words': () => `${content()} ${content()} ${content()}`,
    'quoted phrase': () => {
      const words = texts[Math.floor(random() * texts.length)].split(' ');
      const at = Math.floor(random() * (words.length - 2));
      return `"${words.slice(at, at + 2).join(' ')}"`;
    },
    'with project filter': () => `${content()} ${content()}`,
    'very common words (worst case)': () => `${COMMON[Math.floor(random() * 10)]} ${COMMON[Math.floor(random() * 10)]}`,
  };
  for (let i = 0; i < 200; i++) await h.request('search', { q: kinds['two words'](), limit: 20 }); // warm-up
  const all: number[] = [];
  for (const [kind, make] of Object.entries(kinds)) {
    const latencies: number[] = [];
    let results = 0;
    const t0 = performance.now();
    const count = kind.startsWith('very') ? QUERIES / 10 : QUERIES / 5;
    for (let i = 0; i < count; i++) {
      const q = make();
      const project = kind === 'with project filter' ? `project-${i % 10}` : undefined;
      const s = performance.now();
      const reply = await h.request<{ results: unknown[] }>('search', { q, project, limit: 20 });
      latencies.push(performance.now() - s);
      results += reply.results.length;
    }
    const summary = summarize(latencies, performance.now() - t0);
    if (!kind.startsWith('very')) all.push(...latencies);
    console.log(
      `    ${kind.padEnd(32)} p50 ${ms(summary.p50)}  p99 ${ms(summary.p99)}  (${count} queries, ` +
        `${(results / count).toFixed(1)} results each)`,
    );
  }
  const overall = summarize(all, 1);
  console.log(
    `    typical queries, all kinds above     p50 ${ms(overall.p50)}  p99 ${ms(overall.p99)}  (target p99 < 50 ms)`,
  );
}

async function benchSearch() {
  let h = await startHarness(embeddedStore, tempDirs(), { env: { TRANSCRIPT_FSYNC: 'false' } });
  try {
    const texts: string[] = [];
    const [, loadMs] = await timed(async () => {
      for (let i = 0; i < SEARCH_MEETINGS; i++) {
        const m = await open(h, `project-${i % 10}`, `Meeting ${i}`);
        for (let j = 0; j < SEARCH_SEGMENTS_PER_MEETING; j++) {
          const text = sentence();
          if (texts.length < 5000) texts.push(text);
          await h.request('append', {
            meetingId: m.meetingId,
            index: j,
            segment: {
              speaker: `Speaker ${j % 7}`,
              text,
              timestamp: new Date(Date.parse(m.startedAt) + j * 2000).toISOString(),
            },
          });
        }
        await flush(h, m.meetingId, 'completed');
      }
    });
    console.log(
      `  stored, flushed and indexed ${h.service.indexedSegments()} segments in ${(loadMs / 1000).toFixed(1)} s`,
    );

    collectGarbage(); // the query phase measures queries, not the collection of the ingest's garbage
    await runQueries(h, texts, 'index built by the flushes');

    const [restarted, restartMs] = await timed(() => h.restart());
    h = restarted;
    console.log(`  restart: ${ms(restartMs)} until search answers (store reload and index rebuild)`);
    collectGarbage();
    await runQueries(h, texts, 'after a restart, index rebuilt from the store');

    // The index alone, rebuilt once more from the open store, and what it holds on the heap.
    const heapBefore = process.memoryUsage().heapUsed;
    const segments = new Segments(h.store);
    const indexer = new Indexer(
      new Documents(h.store, segments, h.contentRoot, { fsync: false }),
      segments,
      silentLogger(),
    );
    const [, rebuildMs] = await timed(() => indexer.rebuild());
    console.log(
      `  index rebuild alone: ${ms(rebuildMs)} for ${indexer.index.size} segments, ` +
        `heap +${mb(process.memoryUsage().heapUsed - heapBefore)} (before GC)`,
    );
  } finally {
    await h.dispose();
  }
}

console.log(`transcripts: flush of a ${FLUSH_SEGMENTS}-segment document (target < 50 ms)`);
await benchFlush();
console.log(`transcripts: write amplification of a 2-hour meeting (a segment every 2 s, a flush every 10 s)`);
await benchAmplification();
console.log(`transcripts: search over ${SEARCH_MEETINGS * SEARCH_SEGMENTS_PER_MEETING} stored segments`);
await benchSearch();
