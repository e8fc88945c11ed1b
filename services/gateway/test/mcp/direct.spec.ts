/**
 * The 2026-07-28 tools/call answered by the endpoint itself (mcp/direct.ts) must be the SDK's
 * answer to the same request, byte for byte: each request below is sent as the 2.x Client sends
 * it, once on the direct path and once with it off (the SDK's), on one stack.
 */
import { expect } from 'chai';
import { directToolCalls } from '../../src/mcp/direct.js';
import {
  openLegacySession,
  recordToolCall,
  sendRaw,
  startMeetingWithSegments,
  type RecordedRequest,
} from '../support/mcp-wire.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';

/** A POST to /mcp exactly as given; the answer's status, type, session and bytes. */
async function post(baseUrl: string, headers: Record<string, string>, body: string) {
  const res = await sendRaw(baseUrl, 'POST', '/mcp', headers, body);
  return {
    status: res.status,
    type: res.headers['content-type'],
    session: res.headers['mcp-session-id'] as string | undefined,
    text: res.text,
  };
}

/** The headers and body a real 2.x Client sends for tools/call `name`. */
const recordCall = (baseUrl: string, apiKey: string, name: string, args: object) =>
  recordToolCall(baseUrl, apiKey, 'direct', name, args);

describe('MCP tools/call answered directly (2026-07-28)', function () {
  this.timeout(60_000);
  let t: TestStack;
  let apiKey: string;
  let meetingId: string;
  const driver = scriptedDriverFactory();

  before(async () => {
    t = await startTestStack({}, { driverFactory: driver });
    ({ apiKey } = await t.createToken([]));
    meetingId = await startMeetingWithSegments(t, driver, apiKey, 'https://meet.google.com/dir-ectc-all', [
      { speaker: 'Alice', text: 'Hello “there”, with <markup> & ünïcode.' },
      { speaker: 'Bob', text: 'Second line.' },
    ]);
  });
  after(async () => {
    directToolCalls.enabled = true;
    await t.stop();
  });

  /** Both paths' answers to one request, the SDK's first. */
  async function both(request: RecordedRequest, id: number) {
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
    const openSession = (key: string) => openLegacySession(t.baseUrl, key, 'direct');
    const call = (name: string, args: object) => ({
      jsonrpc: '2.0',
      method: 'tools/call',
      params: { name, arguments: args },
    });

    for (const [label, make] of cases) {
      it(`answers ${label} with the SDK's bytes`, async () => {
        const [name, args] = make();
        const headers = await openSession(apiKey);
        const { sdk, direct } = await both({ headers, body: call(name, args) as RecordedRequest['body'] }, 12);
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
          { headers: variant, body: call('list_meetings', {}) as RecordedRequest['body'] },
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
