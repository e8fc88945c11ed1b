/**
 * MCP requests as bytes on the wire, for the tests and the benchmark that replay them with plain
 * HTTP (services/gateway/test/mcp/plain-tool-call.spec.ts, test/bench/mcp.bench.ts): the exact request a
 * real 2.x Client sends for a tools/call (recorded from one), a 2025-11-25 session opened as the
 * 1.x client opens one, a raw request that keeps the answer's bytes, and a live meeting on the
 * scripted platform whose transcript already holds its segments.
 */
import http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { ScriptedDriverFactory, ScriptedMeeting } from '../../../../test/support/scripted-driver.js';
import type { TestStack } from '../../../../test/support/stack.js';
import { eventually } from '../../../../test/support/wait.js';

/** One recorded request: its headers (names in lower case) and its JSON-RPC body. */
export interface RecordedRequest {
  headers: Record<string, string>;
  body: { params: Record<string, unknown> } & Record<string, unknown>;
}

export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** `method path` on `baseUrl` with exactly these headers and body; the answer's text as sent. */
export function sendRaw(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  agent?: http.Agent,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The headers and body a real 2.x Client (pinned to 2026-07-28, named `clientName`) sends for
 * tools/call `name`. The call's own answer is not looked at: the caller replays the request and
 * judges the answer it gets.
 */
export async function recordToolCall(
  baseUrl: string,
  apiKey: string,
  clientName: string,
  name: string,
  args: object,
): Promise<RecordedRequest> {
  let recorded: RecordedRequest | undefined;
  const recording: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (body?.method === 'tools/call') {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
      recorded = { headers, body };
    }
    return fetch(input, init);
  };
  const client = new Client(
    { name: clientName, version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      fetch: recording,
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  await client.callTool({ name, arguments: args as Record<string, unknown> }).catch(() => undefined);
  await client.close();
  if (!recorded) throw new Error('no tools/call recorded');
  return recorded;
}

/**
 * A 2025-11-25 session opened with `apiKey` as the 1.x client opens one (initialize, then
 * notifications/initialized); the headers for its next requests, names in lower case. Throws
 * unless both steps are accepted.
 */
export async function openLegacySession(
  baseUrl: string,
  apiKey: string,
  clientName: string,
  agent?: http.Agent,
): Promise<Record<string, string>> {
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'x-api-key': apiKey,
  };
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
  };
  const init = await sendRaw(baseUrl, 'POST', '/mcp', base, JSON.stringify(initialize), agent);
  const headers = {
    ...base,
    'mcp-session-id': String(init.headers['mcp-session-id']),
    'mcp-protocol-version': '2025-11-25',
  };
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const ack = await sendRaw(baseUrl, 'POST', '/mcp', headers, initialized, agent);
  if (init.status !== 200 || ack.status !== 202) throw new Error(`session not opened: ${init.status} ${ack.status}`);
  return headers;
}

/**
 * Starts a meeting at `url` with `apiKey` (callbacks to a closed port, no transcript saved), has
 * the scripted platform say `segments`, and waits until the transcript route lists them all.
 */
export async function startMeetingWithSegments(
  t: TestStack,
  driver: ScriptedDriverFactory,
  apiKey: string,
  url: string,
  segments: Array<Parameters<ScriptedMeeting['segment']>[0]>,
): Promise<string> {
  const res = await t.api('/meetings/start', {
    method: 'POST',
    apiKey,
    json: { url, callbackUrl: 'http://127.0.0.1:9/hook', saveTranscript: false },
  });
  if (res.status !== 201) throw new Error(`starting the meeting: ${res.status} ${await res.text()}`);
  const { meetingId } = (await res.json()) as { meetingId: string };
  const meeting = await driver.meeting(meetingId);
  for (const segment of segments) meeting.segment(segment);
  await eventually(
    async () => {
      const res = await t.api(`/meetings/${meetingId}/transcript`, { apiKey });
      return ((await res.json()) as { segments: unknown[] }).segments.length === segments.length;
    },
    `${segments.length} segments in the transcript of ${meetingId}`,
    30_000,
  );
  return meetingId;
}
