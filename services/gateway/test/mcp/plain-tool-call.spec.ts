/**
 * A plain tools/call takes the endpoint's own route (mcp/plain-tool-call.ts: a long-lived SDK
 * connection of the key's, tool-call-lines.ts); its answer must be, byte for byte, what the SDK's HTTP
 * entries answer to the same request: createMcpHandler for 2026-07-28, a session's Streamable HTTP
 * transport for 2025-11-25, each serving our server definition (createMcpServer) on the stack's
 * bus. Every request is sent as the SDKs' clients send it; `mcp_tool_calls_total` (on /metrics)
 * tells which route the endpoint took.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { createMcpHandler, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { silentLogger } from '@notetaker/observability';
import { authInfoOf } from '../../src/mcp/caller.js';
import { createMcpServer } from '../../src/mcp/server.js';
import {
  openLegacySession,
  recordToolCall,
  sendRaw,
  startMeetingWithSegments,
  type RecordedRequest,
} from '../support/mcp-wire.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';

interface Answer {
  status: number;
  type: string | undefined;
  session: boolean;
  text: string;
}
/** A key created without capabilities (what the tools here need). */
interface Key {
  id: string;
  apiKey: string;
}
type Headers = Record<string, string>;

describe('MCP plain tools/call: the SDK answer, without its HTTP entry', function () {
  this.timeout(60_000);
  let t: TestStack;
  let key: Key;
  let meetingId: string;
  let modernSdk: ReturnType<typeof createMcpHandler>;
  const driver = scriptedDriverFactory();

  before(async () => {
    t = await startTestStack({}, { driverFactory: driver });
    key = await t.createToken([]);
    meetingId = await startMeetingWithSegments(t, driver, key.apiKey, 'https://meet.google.com/pla-intc-all', [
      { speaker: 'Alice', text: 'Hello “there”, with <markup> & ünïcode.' },
      { speaker: 'Bob', text: 'Second line.' },
    ]);
    modernSdk = createMcpHandler(() => createMcpServer(serverDeps(), 'modern'), { legacy: 'reject' });
  });
  after(async () => {
    await modernSdk?.close();
    await t.stop();
  });

  const serverDeps = () => ({ bus: t.stack.bus, logger: silentLogger() });
  const authInfo = (k: Key) => authInfoOf({ kind: 'token', tokenId: k.id, capabilities: [] }, { baseUrl: t.baseUrl });
  const mcpRequest = (headers: Headers, body: string) =>
    new Request(`${t.baseUrl}/mcp`, { method: 'POST', headers, body });

  async function answerOf(res: Response): Promise<Answer> {
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? undefined,
      session: res.headers.has('mcp-session-id'),
      text: await res.text(),
    };
  }

  /** The endpoint's answer, over HTTP, and how many tool calls took the plain route meanwhile. */
  async function endpoint(headers: Headers, body: string): Promise<{ answer: Answer; plain: number }> {
    const before = await plainCalls();
    const res = await sendRaw(t.baseUrl, 'POST', '/mcp', headers, body);
    const answer = {
      status: res.status,
      type: res.headers['content-type'],
      session: res.headers['mcp-session-id'] !== undefined,
      text: res.text,
    };
    return { answer, plain: (await plainCalls()) - before };
  }

  async function plainCalls(): Promise<number> {
    const metrics = await (await fetch(`${t.baseUrl}/metrics`)).text();
    return Number(/^mcp_tool_calls_total\{route="plain"[^}]*\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
  }

  /** The SDK's createMcpHandler answering the same 2026-07-28 request for key `k`. */
  async function sdkModern(k: Key, headers: Headers, body: string): Promise<Answer> {
    return answerOf(
      await modernSdk.fetch(mcpRequest(headers, body), { authInfo: authInfo(k), parsedBody: JSON.parse(body) }),
    );
  }

  /** A 2025-11-25 session on the SDK's own transport for key `k`: answers requests as the session's transport. */
  async function sdkSession(k: Key): Promise<(headers: Headers, body: string) => Promise<Answer>> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
    });
    await createMcpServer(serverDeps(), 'legacy').connect(transport);
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'reference', version: '1' } },
    };
    const opened = await transport.handleRequest(mcpRequest(base, JSON.stringify(initialize)));
    const id = opened.headers.get('mcp-session-id')!;
    const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const session = { ...base, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
    expect((await transport.handleRequest(mcpRequest(session, initialized))).status).to.equal(202);
    return async (headers, body) => {
      const request = mcpRequest({ ...headers, 'mcp-session-id': id }, body);
      return answerOf(await transport.handleRequest(request, { authInfo: authInfo(k), parsedBody: JSON.parse(body) }));
    };
  }

  const withId = (request: RecordedRequest, id: number) => JSON.stringify({ ...request.body, id });

  const cases: Array<[string, () => [string, object], boolean]> = [
    ['list_meetings', () => ['list_meetings', {}], true],
    ['get_transcript', () => ['get_transcript', { meetingId }], true],
    ['get_transcript with after', () => ['get_transcript', { meetingId, after: 1 }], true],
    ['an error result (a meeting not found)', () => ['get_transcript', { meetingId: 'no-such-meeting' }], true],
    ['an error result (a bad argument)', () => ['list_meetings', { surplus: 1 }], true],
    ['an unknown tool (left to the SDK)', () => ['no_such_tool', {}], false],
  ];

  describe('2026-07-28', () => {
    for (const [label, make, plain] of cases) {
      it(`answers ${label} with the SDK's bytes`, async () => {
        const [name, args] = make();
        const request = await recordToolCall(t.baseUrl, key.apiKey, 'plain', name, args);
        const body = withId(request, 7);
        const ours = await endpoint(request.headers, body);
        expect(ours.answer).to.deep.equal(await sdkModern(key, request.headers, body));
        expect(ours.answer.status).to.equal(200);
        expect(ours.plain, 'tool calls on the plain route').to.equal(plain ? 1 : 0);
      });
    }

    it("leaves the SDK's refusals to the SDK (headers missing or not matching the body)", async () => {
      const request = await recordToolCall(t.baseUrl, key.apiKey, 'plain', 'list_meetings', {});
      const variants: Headers[] = ['mcp-protocol-version', 'mcp-method', 'mcp-name'].map((drop) => {
        const headers = { ...request.headers };
        delete headers[drop];
        return headers;
      });
      variants.push({ ...request.headers, 'mcp-name': 'get_transcript' });
      variants.push({ ...request.headers, 'mcp-method': 'tools/list' });
      for (const headers of variants) {
        const ours = await endpoint(headers, withId(request, 8));
        expect(ours.answer).to.deep.equal(await sdkModern(key, headers, withId(request, 8)));
        expect(ours.answer.status, ours.answer.text).to.be.within(400, 499);
        expect(ours.plain).to.equal(0);
      }
    });

    it('leaves a malformed envelope to the SDK, after plain calls with a sound one', async () => {
      const request = await recordToolCall(t.baseUrl, key.apiKey, 'plain', 'list_meetings', {});
      expect((await endpoint(request.headers, withId(request, 13))).plain).to.equal(1);
      const meta = request.body.params._meta as Record<string, unknown>;
      for (const envelope of [
        { ...meta, 'io.modelcontextprotocol/clientInfo': 5 },
        // The same keys, one nested value unlike the sound envelope's.
        { ...meta, 'io.modelcontextprotocol/clientInfo': { name: 'plain', version: 5 } },
        { ...meta, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' },
      ]) {
        const body = JSON.stringify({ ...request.body, id: 14, params: { ...request.body.params, _meta: envelope } });
        const ours = await endpoint(request.headers, body);
        expect(ours.answer).to.deep.equal(await sdkModern(key, request.headers, body));
        expect(ours.answer.status, ours.answer.text).to.be.within(400, 499);
        expect(ours.plain).to.equal(0);
      }
    });

    it('answers each key with its own meetings only', async () => {
      const other = await t.createToken([]);
      const foreign = await recordToolCall(t.baseUrl, other.apiKey, 'plain', 'get_transcript', { meetingId });
      expect(JSON.parse((await endpoint(foreign.headers, withId(foreign, 9))).answer.text).result.isError).to.equal(
        true,
      );
      const mine = await recordToolCall(t.baseUrl, other.apiKey, 'plain', 'list_meetings', {});
      const listed = JSON.parse((await endpoint(mine.headers, withId(mine, 10))).answer.text);
      expect(listed.result.structuredContent.meetings).to.deep.equal([]);
    });

    it('refuses a revoked key before any tool runs', async () => {
      const revoked = await t.createToken([]);
      const request = await recordToolCall(t.baseUrl, revoked.apiKey, 'plain', 'list_meetings', {});
      await t.revokeToken(revoked.id);
      const ours = await endpoint(request.headers, withId(request, 11));
      expect(ours.answer.status).to.equal(401);
      expect(ours.plain).to.equal(0);
    });
  });

  describe('2025-11-25, on a session', () => {
    const call = (name: string, args: object) =>
      JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name, arguments: args } });

    for (const [label, make, plain] of cases) {
      it(`answers ${label} with the bytes of the session's transport`, async () => {
        const [name, args] = make();
        const headers = await openLegacySession(t.baseUrl, key.apiKey, 'plain');
        const ours = await endpoint(headers, call(name, args));
        expect(ours.answer).to.deep.equal(await (await sdkSession(key))(headers, call(name, args)));
        expect(ours.answer.status).to.equal(200);
        expect(ours.plain, 'tool calls on the plain route').to.equal(plain ? 1 : 0);
      });
    }

    it("leaves the transport's refusals to the transport", async () => {
      const headers = await openLegacySession(t.baseUrl, key.apiKey, 'plain');
      const reference = await sdkSession(key);
      for (const variant of [
        { ...headers, accept: 'application/json' },
        { ...headers, 'mcp-protocol-version': '1999-01-01' },
      ]) {
        const ours = await endpoint(variant, call('list_meetings', {}));
        expect(ours.answer).to.deep.equal(await reference(variant, call('list_meetings', {})));
        expect(ours.answer.status, ours.answer.text).to.be.within(400, 499);
        expect(ours.plain).to.equal(0);
      }
    });

    it("answers another key's session, or an unknown one, as not found", async () => {
      const headers = await openLegacySession(t.baseUrl, key.apiKey, 'plain');
      const other = await t.createToken([]);
      for (const variant of [
        { ...headers, 'mcp-session-id': 'no-such-session' },
        { ...headers, 'x-api-key': other.apiKey },
      ]) {
        const ours = await endpoint(variant, call('list_meetings', {}));
        expect(ours.answer.status, ours.answer.text).to.equal(404);
        expect(ours.plain).to.equal(0);
      }
    });
  });
});
