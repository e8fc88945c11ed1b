/**
 * What a storage fault costs a recording (issue 50's closing figures): meeting-session,
 * transcript-store on a local S3 server (s3rver) behind the fault proxy, all in this process on a
 * nats-server started here (or NATS_URL), the scripted platform whose pages hand over a real Opus
 * tone (32 kbit/s CBR, what the product records at) a second at a time, in real time (the
 * recording's timeline is the wall clock's, so a faster feed would not be a meeting).
 *
 * Each phase starts `meetings` recorded meetings, lets them record 4 s with storage healthy, then
 * applies its fault for `seconds` (the support module's fault-stack.ts, as the spec does):
 *   healthy      nothing;
 *   hung         `hang`: connections taken, nothing answered;
 *   refused-503  `refuse` for half the span, `unavailable` (503s) for the other half;
 *   late 7 s     `late`: every write lands at once, its answer 7 s late (attempts time out at 3 s);
 * then storage answers again, the meetings record 2 s more once every spool is drained, and stop.
 *
 * Figures per phase, from the files as stored (read over the bus) against what the pages made:
 * - lost: Opus packets handed over that are not in the file (a packet the worker filled with
 *   silence, or never stored), in seconds of audio, all meetings together;
 * - duplicated: packets on an Ogg page whose sequence number the file already had (a batch stored
 *   twice), in seconds; batches: sequences sent, attempts sent again, meetings whose batch
 *   identities broke (RecordingRequests.expectOneIdentityPerBatch), gaps the finishes carried;
 * - spool: bytes on the worker's disk (DATA_DIR/recording-spool) grown during the fault, per
 *   meeting, extrapolated to an hour of audio made (what an hour's outage would hold);
 * - heap (after a GC) and PSS (/proc/self/smaps_rollup) of this process at the fault's end,
 *   against the same process with 0 meetings just before and just after the phase (their mean:
 *   a drift over the phase cancels), per meeting: the whole stack
 *   (worker, store, S3 server) is here, so that is every part's share;
 * - drain: from storage answering again until the store holds each meeting's audio up to that
 *   moment (less 1.5 s in flight; recordings.get over the bus, 200 ms polls);
 * - pending: the worker's pendingBytes in the status verb as storage came back (a snapshot value:
 *   it is refreshed when it turns zero or non-zero, so it shows the outage began, not its size).
 *
 * `npx tsx test/bench/recording-faults.bench.ts [meetings=10] [seconds=15]`: about 2-3 minutes
 * (BENCH_LOG_LEVEL=warn shows the services' log lines).
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { call } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { findNatsServerBinary, startNatsServer } from '@notetaker/bus/test-support';
import type { FaultMode } from '../support/fault-proxy.js';
import { sleep } from '../support/wait.js';
import { pssBytes } from '../../services/meeting-session/src/drivers/process-tree.js';
import { SILENT_PACKET } from '../../services/meeting-session/src/recording/ogg.js';
import {
  liveRecording,
  startFaultStack,
  toneMeeting,
  type Stack,
  type ToneMeeting,
} from '../../services/meeting-session/test/support/fault-stack.js';
import { oggPackets } from '../../services/meeting-session/test/support/opus-tone.js';
import { storedBytes } from '../../services/meeting-session/test/support/recordings.js';
import { fmt, median } from './stats.js';

const MEETINGS = Number(process.argv[2] ?? 10);
const FAULT_S = Number(process.argv[3] ?? 15);
const BITRATE = '32k';
const PACKET_S = 0.02;
const LEAD_MS = 4_000;
const TAIL_MS = 2_000;
const DRAIN_LIMIT_MS = 90_000;
/** The page's last batch may still be on its way when storage comes back. */
const IN_FLIGHT_MS = 1_500;
const MiB = 1024 * 1024;
const MB = 1e6;

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

interface FaultPhase {
  label: string;
  /** Applies the fault over FAULT_S seconds. */
  apply(stack: Stack): Promise<void>;
}

const hold = (stack: Stack, mode: FaultMode, ms: number) => stack.proxy.setMode(mode).then(() => sleep(ms));

const PHASES: FaultPhase[] = [
  { label: 'healthy', apply: () => sleep(FAULT_S * 1000) },
  { label: 'hung', apply: (s) => hold(s, { kind: 'hang' }, FAULT_S * 1000) },
  {
    label: 'refused-503',
    apply: async (s) => {
      await hold(s, { kind: 'refuse' }, (FAULT_S * 1000) / 2);
      await hold(s, { kind: 'unavailable' }, (FAULT_S * 1000) / 2);
    },
  },
  { label: 'late 7 s', apply: (s) => hold(s, { kind: 'late', delayMs: 7000 }, FAULT_S * 1000) },
];

interface Memory {
  heap: number;
  pss: number;
}

function memory(): Memory {
  gc();
  return { heap: process.memoryUsage().heapUsed, pss: pssBytes(process.pid) };
}

/** Bytes of every file under `dir` (0 when it is not there). */
function diskBytes(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const at = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? diskBytes(at) : fs.statSync(at).size);
  }, 0);
}

/** What the stored file holds against what the page made: packets heard, filled with silence, stored twice. */
function compareFile(file: Buffer, made: number) {
  let tone = 0;
  let duplicated = 0;
  const seen = new Set<number>();
  let page = -1;
  let again = false;
  // The first two packets are OpusHead and OpusTags.
  for (const p of oggPackets(file).slice(2)) {
    if (p.page !== page) {
      page = p.page;
      again = seen.has(page);
      seen.add(page);
    }
    if (again) duplicated++;
    else if (!p.packet.equals(SILENT_PACKET)) tone++;
  }
  return { lost: Math.max(0, made - tone), duplicated };
}

interface Row {
  label: string;
  lostS: number;
  duplicatedS: number;
  madeS: number;
  batches: number;
  retries: number;
  brokenIdentities: number;
  gaps: number;
  spoolPerHour: number;
  /** pendingBytes of all meetings together as storage answered again. */
  pendingAtEnd: number;
  memory: Memory;
  /** The process with 0 meetings before and after the phase. */
  idle: Memory[];
  drainMs: number[];
  saved: number;
}

/**
 * Ms from `since` (storage back) until the store holds each meeting's audio up to `since` (the
 * limit for one that never gets there). The worker's own pendingBytes is not used: the status
 * verb's snapshot refreshes it only when it turns zero or non-zero.
 */
async function drainTimes(stack: Stack, meetings: ToneMeeting[], since: number): Promise<number[]> {
  const drained = new Map<string, number>();
  while (drained.size < meetings.length && Date.now() - since < DRAIN_LIMIT_MS) {
    for (const m of meetings) {
      if (drained.has(m.meetingId)) continue;
      const stored = await call(stack.h.bus, routes.recordings.get, { meetingId: m.meetingId });
      if ((stored?.durationMs ?? 0) >= since - m.live - IN_FLIGHT_MS) drained.set(m.meetingId, Date.now() - since);
    }
    await sleep(200);
  }
  return meetings.map((m) => drained.get(m.meetingId) ?? DRAIN_LIMIT_MS);
}

/** Per meeting added: at the fault's end against the mean of the idle process around the phase. */
const perMeeting = (r: Row, key: keyof Memory) =>
  (r.memory[key] - r.idle.reduce((sum, m) => sum + m[key], 0) / r.idle.length) / MEETINGS / MiB;

async function runPhase(stack: Stack, phase: FaultPhase): Promise<Row> {
  const spoolDir = path.join(stack.h.dataDir, 'recording-spool');
  // One after another: ten starts at once time out on this machine (the store's answer to start).
  const meetings: ToneMeeting[] = [];
  for (let i = 0; i < MEETINGS; i++) meetings.push(await toneMeeting(stack, LEAD_MS / 1000 + FAULT_S + 90, BITRATE));
  await sleep(LEAD_MS);
  const spoolBefore = diskBytes(spoolDir);
  const madeBefore = meetings.reduce((sum, m) => sum + m.packetsMade(), 0);
  await phase.apply(stack);
  const spoolGrown = diskBytes(spoolDir) - spoolBefore;
  const madeDuringS = (meetings.reduce((sum, m) => sum + m.packetsMade(), 0) - madeBefore) * PACKET_S;
  const mem = memory();
  let pendingAtEnd = 0;
  for (const m of meetings) pendingAtEnd += (await liveRecording(stack.h, m.meetingId)).recording?.pendingBytes ?? 0;
  await stack.proxy.setMode({ kind: 'pass' });
  const drainMs = await drainTimes(stack, meetings, Date.now());
  await sleep(TAIL_MS);
  await Promise.all(meetings.map((m) => m.stop()));

  const row: Row = {
    label: phase.label,
    lostS: 0,
    duplicatedS: 0,
    madeS: 0,
    batches: 0,
    retries: 0,
    brokenIdentities: 0,
    gaps: 0,
    spoolPerHour: (spoolGrown / madeDuringS) * 3600,
    pendingAtEnd,
    memory: mem,
    idle: [],
    drainMs,
    saved: 0,
  };
  const saved = await Promise.allSettled(
    meetings.map((m) => stack.h.waitForEvent(m.meetingId, (e) => e.type === 'recording_saved', 60_000)),
  );
  row.saved = saved.filter((r) => r.status === 'fulfilled').length;
  if (row.saved < MEETINGS)
    console.log(`   ${phase.label}: ${MEETINGS - row.saved} meetings without recording_saved 60 s after the stop`);
  for (const m of meetings) {
    const made = m.packetsMade();
    const { lost, duplicated } = compareFile(await storedBytes(stack.h.bus, m.meetingId), made);
    row.madeS += made * PACKET_S;
    row.lostS += lost * PACKET_S;
    row.duplicatedS += duplicated * PACKET_S;
    row.batches += new Set(stack.requests.appends(m.meetingId).map((a) => a.sequence)).size;
    row.retries += m.requests.retries();
    row.gaps += m.requests.finishes().at(-1)?.gaps?.length ?? 0;
    try {
      m.requests.expectOneIdentityPerBatch();
    } catch {
      row.brokenIdentities++;
    }
  }
  return row;
}

function printTable(rows: Row[]): void {
  const head =
    'phase        audio made  lost s  dup s  batches  resent  broken  gaps  pending KB/mtg  spool MB/meeting-h  heap MiB/mtg  PSS MiB/mtg  drain p50/max s  saved';
  console.log(head);
  console.log('-'.repeat(head.length));
  for (const r of rows) {
    console.log(
      [
        r.label.padEnd(11),
        `${fmt(r.madeS, 0, 8)} s`,
        fmt(r.lostS, 1, 7),
        fmt(r.duplicatedS, 1, 6),
        fmt(r.batches, 0, 8),
        fmt(r.retries, 0, 7),
        fmt(r.brokenIdentities, 0, 7),
        fmt(r.gaps, 0, 5),
        fmt(r.pendingAtEnd / MEETINGS / 1000, 1, 14),
        fmt(r.spoolPerHour / MB, 2, 19),
        fmt(perMeeting(r, 'heap'), 2, 13),
        fmt(perMeeting(r, 'pss'), 2, 12),
        `${fmt(median(r.drainMs) / 1000, 2, 9)}/${fmt(Math.max(...r.drainMs) / 1000, 2, 5)}`,
        `${r.saved}/${MEETINGS}`.padStart(6),
      ].join(' '),
    );
  }
}

async function main(natsUrl: string): Promise<void> {
  console.log(
    `recording-faults bench: ${MEETINGS} meetings a phase, ${FAULT_S} s of fault after ${LEAD_MS / 1000} s healthy, ` +
      `Opus tone ${BITRATE} in 1 s batches, real time; S3 (s3rver) behind the fault proxy; append attempt timeout 3 s`,
  );
  // The scripted meetings have nobody else in: a phase must not end them as alone.
  const stack = await startFaultStack(natsUrl, {
    ALONE_TIMEOUT_MS: '600000',
    ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
  });
  try {
    await sleep(1000);
    const rows: Row[] = [];
    let idle = memory();
    for (const phase of PHASES) {
      const started = Date.now();
      const row = await runPhase(stack, phase);
      // The meetings ended and their files finished: the process with 0 meetings again.
      await sleep(1000);
      row.idle = [idle, (idle = memory())];
      rows.push(row);
      console.log(
        `   ${phase.label}: ${((Date.now() - started) / 1000).toFixed(0)} s; 0 meetings before/after: ` +
          row.idle.map((m) => `heap ${fmt(m.heap / MiB, 1, 0)} MiB PSS ${fmt(m.pss / MiB, 1, 0)} MiB`).join(' / '),
      );
    }
    console.log('');
    printTable(rows);
    console.log(
      `\n   lost/dup: seconds of audio over all ${MEETINGS} meetings of the phase; memory at the fault's end against the mean of 0 meetings just before and after the phase; pending: as storage came back; ` +
        `spool: disk grown during the fault per meeting, per hour of audio made; drain: storage back -> the store holds the audio up to then`,
    );
    const outage = rows.find((r) => r.label === 'hung');
    if (outage)
      console.log(
        `   an hour's outage of 10 meetings would spool ~${fmt((outage.spoolPerHour * 10) / MB, 0, 0)} MB (from the hung phase)`,
      );
  } finally {
    await stack.stop();
  }
}

const watchdog = setTimeout(() => {
  console.log('gave up after 8 minutes');
  process.exit(1);
}, 8 * 60_000);
const server = process.env.NATS_URL ? null : await startNatsServer(findNatsServerBinary()!);
try {
  await main(process.env.NATS_URL ?? server!.url);
} catch (err) {
  console.log(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await server?.stop();
}
process.exit();
