/**
 * The 2026-07-28 tools/call answered by the endpoint itself (mcp/direct.ts) must be the SDK's
 * answer to the same request, byte for byte: each request below is sent as the 2.x Client sends
 * it, once on the direct path and once with it off (the SDK's), on one stack.
 */
import http from 'node:http';
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { directToolCalls } from '../../src/mcp/direct.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';

interface Recorded {
  headers: Record<string, string>;
  body: { params: Record<string, unknown> } & Record<string, unknown>;
}

function post(baseUrl: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; type?: string; session?: string; text: string }>((resolve, reject) => {
    const req = http.request(`${baseUrl}/mcp`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'],
          session: res.headers['mcp-session-id'] as string | undefined,
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The headers and body a real 2.x Client sends for tools/call `name`. */
async function recordCall(baseUrl: string, apiKey: string, name: string, args: object): Promise<Recorded> {
  let recorded: Recorded | undefined;
  const recording: typeof fetch = async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (body?.method === 'tools/call') {
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => (headers[key] = value));
      recorded = { headers, body };
    }
    return fetch(input, init);
  };
  const client = new Client({ name: 'direct', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
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

describe('MCP tools/call answered directly (2026-07-28)', function () {
  this.timeout(60_000);
  let t: TestStack;
  let apiKey: string;
  let meetingId: string;
  const driver = scriptedDriverFactory();

  before(async () => {
    t = await startTestStack({}, { driverFactory: driver });
    ({ apiKey } = await t.createToken([]));
    const res = await t.api('/meetings/start', {
      method: 'POST',
      apiKey,
      json: {
        url: 'https://meet.google.com/dir-ectc-all',
        callbackUrl: 'http://127.0.0.1:9/hook',
        saveTranscript: false,
      },
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    ({ meetingId } = (await res.json()) as { meetingId: string });
    const meeting = await driver.meeting(meetingId);
    meeting.segment({ speaker: 'Alice', text: 'Hello “there”, with <markup> & ünïcode.' });
    meeting.segment({ speaker: 'Bob', text: 'Second line.' });
    for (;;) {
      const body = (await (await t.api(`/meetings/${meetingId}/transcript`, { apiKey })).json()) as {
        segments: unknown[];
      };
      if (body.segments.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
  after(async () => {
    directToolCalls.enabled = true;
    await t.stop();
  });

  /** Both paths' answers to one request, the SDK's first. */
  async function both(request: Recorded, id: number) {
    const body = JSON.stringify({ ...request.body, id });
    try {
      directToolCalls.enabled = false;
      const sdk = await post(t.baseUrl, request.headers, body);
      directToolCalls.enabled = true;
      const direct = await post(t.baseUrl, request.headers, body);
      return { sdk, direct };
    } finally {
      directToolCalls.enabled = true;
    }
  }

  const cases: Array<[string, () => [string, object]]> = [
    ['list_meetings', () => ['list_meetings', {}]],
    ['get_transcript', () => ['get_transcript', { meetingId }]],
    ['get_transcript with after', () => ['get_transcript', { meetingId, after: 1 }]],
    ['an error result (a meeting not found)', () => ['get_transcript', { meetingId: 'no-such-meeting' }]],
    ['an error result (a bad argument)', () => ['list_meetings', { surplus: 1 }]],
    ['an unknown tool', () => ['no_such_tool', {}]],
  ];
  for (const [label, call] of cases) {
    it(`answers ${label} with the SDK's bytes`, async () => {
      const [name, args] = call();
      const request = await recordCall(t.baseUrl, apiKey, name, args);
      const { sdk, direct } = await both(request, 7);
      expect(direct).to.deep.equal(sdk);
      expect(sdk.status).to.equal(200);
    });
  }

  it("leaves the SDK's refusals to the SDK (headers missing or not matching the body)", async () => {
    const request = await recordCall(t.baseUrl, apiKey, 'list_meetings', {});
    const variants: Array<Record<string, string>> = [];
    for (const drop of ['mcp-protocol-version', 'mcp-method', 'mcp-name']) {
      const headers = { ...request.headers };
      delete headers[drop];
      variants.push(headers);
    }
    variants.push({ ...request.headers, 'mcp-name': 'get_transcript' });
    variants.push({ ...request.headers, 'mcp-method': 'tools/list' });
    for (const headers of variants) {
      const { sdk, direct } = await both({ ...request, headers }, 8);
      expect(direct).to.deep.equal(sdk);
      expect(sdk.status, sdk.text).to.be.within(400, 499);
    }
  });

  it('answers each key with its own meetings only', async () => {
    const other = await t.createToken([]);
    const request = await recordCall(t.baseUrl, other.apiKey, 'get_transcript', { meetingId });
    const { direct } = await both(request, 9);
    expect(JSON.parse(direct.text).result.isError).to.equal(true);
    const mine = await recordCall(t.baseUrl, other.apiKey, 'list_meetings', {});
    const listed = await both(mine, 10);
    expect(JSON.parse(listed.direct.text).result.structuredContent.meetings).to.deep.equal([]);
  });

  describe('on a 2025-11-25 session', () => {
    /** A session opened as the 1.x client opens one; its headers for the next requests. */
    async function openSession(key: string): Promise<Record<string, string>> {
      const base = {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
      };
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'direct', version: '1' } },
      });
      const opened = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: base, body: init });
      expect(opened.status).to.equal(200);
      const headers = {
        ...base,
        'mcp-session-id': opened.headers.get('mcp-session-id')!,
        'mcp-protocol-version': '2025-11-25',
      };
      await post(t.baseUrl, headers, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      return headers;
    }
    const call = (name: string, args: object) => ({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name, arguments: args },
    });

    for (const [label, make] of cases) {
      it(`answers ${label} with the SDK's bytes`, async () => {
        const [name, args] = make();
        const headers = await openSession(apiKey);
        const { sdk, direct } = await both({ headers, body: call(name, args) as Recorded['body'] }, 12);
        expect(direct).to.deep.equal(sdk);
        expect(sdk.status).to.equal(200);
      });
    }

    it("leaves the transport's refusals and other keys' sessions to the SDK", async () => {
      const headers = await openSession(apiKey);
      const other = await t.createToken([]);
      const variants: Array<Record<string, string>> = [
        { ...headers, accept: 'application/json' },
        { ...headers, 'mcp-protocol-version': '1999-01-01' },
        { ...headers, 'mcp-session-id': 'no-such-session' },
        { ...headers, 'x-api-key': other.apiKey },
      ];
      for (const variant of variants) {
        const { sdk, direct } = await both(
          { headers: variant, body: call('list_meetings', {}) as Recorded['body'] },
          13,
        );
        expect(direct).to.deep.equal(sdk);
        expect(sdk.status, sdk.text).to.be.within(400, 499);
      }
    });
  });

  it('refuses a revoked key before any tool runs', async () => {
    const key = await t.createToken([]);
    const request = await recordCall(t.baseUrl, key.apiKey, 'list_meetings', {});
    await t.revokeToken(key.id);
    const { direct } = await both(request, 11);
    expect(direct.status).to.equal(401);
  });
});
