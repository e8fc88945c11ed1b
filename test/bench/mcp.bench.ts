/**
 * MCP beside REST, measured side by side in one run on one stack: `tools/call` of list_meetings and
 * of get_transcript (a live meeting of 200 segments) against GET /meetings/status and GET
 * /meetings/:id/transcript, over keep-alive connections. MCP requests are the exact bytes the
 * SDKs' clients send (recorded once from a real 2.x client for 2026-07-28, and a 1.x-shaped
 * session request for 2025-11-25), replayed with plain HTTP so client-side cost is not counted on
 * either side. Then the memory one open 2025-era session holds on the server.
 */
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  openLegacySession,
  recordToolCall,
  sendRaw,
  startMeetingWithSegments,
} from '../../services/gateway/test/support/mcp-wire.js';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack } from '../support/stack.js';
import { profiled } from './profile.js';
import { formatRow, runWindowed, type LatencySummary } from './stats.js';

const PER_ROW = 4000;
const WINDOW = 8;
const SEGMENTS = 200;
const SESSIONS = 200;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

function gc(): void {
  v8.setFlagsFromString('--expose_gc');
  (vm.runInNewContext('gc') as () => void)();
}

const driver = scriptedDriverFactory();
const t = await startTestStack({ MCP_MAX_SESSIONS_PER_KEY: String(SESSIONS + 10) }, { driverFactory: driver });
try {
  const { apiKey } = await t.createToken();
  const restHeaders = { 'X-API-Key': apiKey };
  const segments = Array.from({ length: SEGMENTS }, (_, i) => ({
    speaker: i % 2 ? 'Bob' : 'Alice',
    text: `Sentence number ${i} of the benchmark meeting.`,
  }));
  const meetingId = await startMeetingWithSegments(t, driver, apiKey, 'https://meet.google.com/ben-chmc-pxx', segments);
  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    sendRaw(t.baseUrl, method, path, headers, body, agent);
  const openSession = () => openLegacySession(t.baseUrl, apiKey, 'bench', agent);

  const session = await openSession();
  let id = 1;
  const rows: Array<{
    label: string;
    rest: () => Promise<unknown>;
    modern: () => Promise<unknown>;
    legacy: () => Promise<unknown>;
  }> = [];
  for (const [tool, args, path] of [
    ['list_meetings', {}, '/api/v1/meetings/status'],
    ['get_transcript', { meetingId }, `/api/v1/meetings/${meetingId}/transcript`],
  ] as const) {
    const modern = await recordToolCall(t.baseUrl, apiKey, 'bench', tool, args);
    const legacyBody = { jsonrpc: '2.0', method: 'tools/call', params: { name: tool, arguments: args } };
    const check = (r: { status: number; text: string }) => {
      if (r.status !== 200 || r.text.includes('"isError":true'))
        throw new Error(`${tool}: ${r.status} ${r.text.slice(0, 200)}`);
    };
    rows.push({
      label: tool,
      rest: async () => check(await send('GET', path, restHeaders)),
      modern: async () =>
        check(await send('POST', '/mcp', modern.headers, JSON.stringify({ ...modern.body, id: id++ }))),
      legacy: async () => check(await send('POST', '/mcp', session, JSON.stringify({ ...legacyBody, id: id++ }))),
    });
  }

  console.log(
    `mcp: tools/call beside the same REST route (${WINDOW} in flight, keep-alive, loopback, ${SEGMENTS}-segment transcript)`,
  );
  for (const row of rows) {
    for (const op of [row.rest, row.modern, row.legacy]) await runWindowed(500, WINDOW, op); // warm-up
    const figures: Record<string, LatencySummary> = {};
    // Interleaved in two rounds, so a slow moment of the machine falls on all three alike.
    const runs: Record<string, LatencySummary[]> = { rest: [], modern: [], legacy: [] };
    for (let round = 0; round < 2; round++) {
      runs.rest.push(await runWindowed(PER_ROW / 2, WINDOW, row.rest));
      runs.modern.push(
        await profiled(`mcp-modern-${row.label}-${round}`, () => runWindowed(PER_ROW / 2, WINDOW, row.modern)),
      );
      runs.legacy.push(
        await profiled(`mcp-legacy-${row.label}-${round}`, () => runWindowed(PER_ROW / 2, WINDOW, row.legacy)),
      );
    }
    for (const [name, list] of Object.entries(runs)) {
      figures[name] = {
        count: list.reduce((a, s) => a + s.count, 0),
        perSecond: list.reduce((a, s) => a + s.perSecond, 0) / list.length,
        p50: list.reduce((a, s) => a + s.p50, 0) / list.length,
        p99: list.reduce((a, s) => a + s.p99, 0) / list.length,
      };
    }
    const ratio = (s: LatencySummary) =>
      `  x REST: p50 ${(s.p50 / figures.rest.p50).toFixed(2)}, p99 ${(s.p99 / figures.rest.p99).toFixed(2)}, req/s ${(s.perSecond / figures.rest.perSecond).toFixed(2)}`;
    console.log(formatRow(`  REST GET (${row.label})`, figures.rest));
    console.log(formatRow(`  MCP 2026-07-28 tools/call ${row.label}`, figures.modern, ratio(figures.modern)));
    console.log(formatRow(`  MCP 2025-11-25 tools/call ${row.label}`, figures.legacy, ratio(figures.legacy)));
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
  agent.destroy();
  await t.stop();
}
