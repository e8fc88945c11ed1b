/**
 * MCP beside REST, measured side by side in one run on one stack: `tools/call` of list_meetings and
 * of get_transcript (a live meeting of 200 segments) against GET /meetings/status and GET
 * /meetings/:id/transcript, over keep-alive connections. MCP requests are the exact bytes the
 * SDKs' clients send (recorded once from a real 2.x client for 2026-07-28, and a 1.x-shaped
 * session request for 2025-11-25), replayed with plain HTTP from a process of its own
 * (support/http-load-process.ts), so that this process's CPU time over a run is the server's
 * alone: the figure that matters is MCP's server CPU per request against REST's for the same
 * operation (the goal: within 1.5x). Then the memory one open 2025-era session holds on the server.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  openLegacySession,
  recordToolCall,
  startMeetingWithSegments,
} from '../../services/gateway/test/support/mcp-wire.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack } from '../support/stack.js';
import { profiled } from './profile.js';
import { formatRow, type LatencySummary } from './stats.js';
import type { LoadRequest, LoadResult, LoadRun } from './support/http-load-process.js';

const PER_ROW = 4000;
const ROUNDS = 4;
const WINDOW = 8;
const SEGMENTS = 200;
const SESSIONS = 200;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function gc(): void {
  v8.setFlagsFromString('--expose_gc');
  (vm.runInNewContext('gc') as () => void)();
}

const loader = fork(path.join(import.meta.dirname, 'support', 'http-load-process.ts'), [], {
  execArgv: ['--import', 'tsx'],
});

/** `total` of `request` sent by the load process; its latencies and this process's CPU per request. */
function load(request: LoadRequest, total: number): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const cpu = process.cpuUsage();
    loader.once('message', (result: LoadResult) => {
      const used = process.cpuUsage(cpu);
      if ('error' in result) return reject(new Error(result.error));
      resolve({ ...result.summary, cpuUs: (used.user + used.system) / result.summary.count });
    });
    loader.send({ request, total, window: WINDOW } satisfies LoadRun);
  });
}

interface Measured extends LatencySummary {
  /** This process's (the server's) CPU time per request, in microseconds. */
  cpuUs: number;
}

const driver = scriptedDriverFactory();
const t = await startTestStack({ MCP_MAX_SESSIONS_PER_KEY: String(SESSIONS + 10) }, { driverFactory: driver });
try {
  const { apiKey } = await t.createToken();
  const restHeaders = { 'x-api-key': apiKey };
  const segments = Array.from({ length: SEGMENTS }, (_, i) => ({
    speaker: i % 2 ? 'Bob' : 'Alice',
    text: `Sentence number ${i} of the benchmark meeting.`,
  }));
  const meetingId = await startMeetingWithSegments(t, driver, apiKey, 'https://meet.google.com/ben-chmc-pxx', segments);
  const openSession = () => openLegacySession(t.baseUrl, apiKey, 'bench', agent);

  const session = await openSession();
  const url = (pathname: string) => `${t.baseUrl}${pathname}`;
  const rows: Array<{ label: string; rest: LoadRequest; modern: LoadRequest; legacy: LoadRequest }> = [];
  for (const [tool, args, pathname] of [
    ['list_meetings', {}, '/api/v1/meetings/status'],
    ['get_transcript', { meetingId }, `/api/v1/meetings/${meetingId}/transcript`],
  ] as const) {
    const modern = await recordToolCall(t.baseUrl, apiKey, 'bench', tool, args);
    const legacyBody = { jsonrpc: '2.0', method: 'tools/call', params: { name: tool, arguments: args } };
    rows.push({
      label: tool,
      rest: { method: 'GET', url: url(pathname), headers: restHeaders },
      modern: { method: 'POST', url: url('/mcp'), headers: modern.headers, body: modern.body },
      legacy: { method: 'POST', url: url('/mcp'), headers: session, body: legacyBody },
    });
  }

  console.log(
    `mcp: tools/call beside the same REST route (${WINDOW} in flight, keep-alive, loopback, ${SEGMENTS}-segment transcript;` +
      ' CPU: the server process only, per request)',
  );
  const kinds = ['rest', 'modern', 'legacy'] as const;
  for (const row of rows) {
    // Warm-up long enough for the JIT to settle: after 500 each, the first round still cost twice the last.
    for (const kind of kinds) await load(row[kind], 2500);
    // Interleaved in rounds, each in another order, so a slow moment of the machine (shared) falls on
    // all three alike; the CPU ratio is the median of the rounds' own ratios.
    const runs: Record<(typeof kinds)[number], Measured[]> = { rest: [], modern: [], legacy: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(k + round) % kinds.length];
        runs[kind].push(await profiled(`mcp-${kind}-${row.label}-${round}`, () => load(row[kind], PER_ROW / ROUNDS)));
      }
    }
    const mean = (list: Measured[], field: keyof Measured) => list.reduce((a, s) => a + s[field], 0) / list.length;
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
    };
    const figures = {} as Record<(typeof kinds)[number], Measured>;
    for (const kind of kinds) {
      const list = runs[kind];
      figures[kind] = {
        count: list.reduce((a, s) => a + s.count, 0),
        perSecond: mean(list, 'perSecond'),
        p50: mean(list, 'p50'),
        p99: mean(list, 'p99'),
        cpuUs: mean(list, 'cpuUs'),
      };
    }
    const cpuRatio = (kind: 'modern' | 'legacy') => median(runs[kind].map((s, i) => s.cpuUs / runs.rest[i].cpuUs));
    const cpu = (s: Measured) => `  CPU ${s.cpuUs.toFixed(0)} us/req`;
    const ratio = (kind: 'modern' | 'legacy') => {
      const s = figures[kind];
      return `${cpu(s)} (x REST ${cpuRatio(kind).toFixed(2)}, goal <= 1.5)  x REST: p50 ${(s.p50 / figures.rest.p50).toFixed(2)}, req/s ${(s.perSecond / figures.rest.perSecond).toFixed(2)}`;
    };
    console.log(formatRow(`  REST GET (${row.label})`, figures.rest, cpu(figures.rest)));
    console.log(formatRow(`  MCP 2026-07-28 tools/call ${row.label}`, figures.modern, ratio('modern')));
    console.log(formatRow(`  MCP 2025-11-25 tools/call ${row.label}`, figures.legacy, ratio('legacy')));
  }

  gc();
  const before = process.memoryUsage();
  for (let i = 1; i < SESSIONS; i++) await openSession();
  gc();
  const after = process.memoryUsage();
  const per = (field: 'heapUsed' | 'rss') => ((after[field] - before[field]) / (SESSIONS - 1) / 1024).toFixed(1);
  console.log(
    `  memory per open 2025-era session (${SESSIONS - 1} opened): heap ${per('heapUsed')} KiB, rss ${per('rss')} KiB`,
  );
} finally {
  loader.disconnect();
  agent.destroy();
  await t.stop();
}
