/**
 * /mcp under the same rules as REST, no weaker: the API key before any MCP exchange (401 with
 * WWW-Authenticate), revocation felt at the next request, the Origin allow-list, the body limit,
 * sessions bound to their key, and one key never seeing another's (or the web UI's) meetings
 * through tools, resources or subscriptions.
 */
import http from 'node:http';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { connectMcp, ERAS, INITIALIZE, mcpPerSuite, postMcp, type McpTestClient } from './clients.js';
import { eventually, sleep } from '../../../../test/support/wait.js';
import { stackPerSuite } from '../support/stack-per-suite.js';

const CALLBACK = 'http://127.0.0.1:9/hook';
const ALLOWED_ORIGIN = 'https://agent.example.com';
const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const meetUrl = () => `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
const transcriptUri = (meetingId: string) => `notetaker://meetings/${meetingId}/transcript`;

/** The SDK's ResourceNotFound (-32602 since the 2026-07-28 SDK), the same for unknown and foreign. */
function expectResourceNotFound(err: { code?: number; message: string }, uri: string): void {
  expect(err.code, err.message).to.equal(-32602);
  expect(err.message).to.include(`Resource not found: ${uri}`);
}

/** POST /mcp with `body` sent in chunks of 256 KiB, no Content-Length; the answer's status and text. */
function postChunked(
  baseUrl: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}/mcp`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    for (let at = 0; at < body.length; at += 256 * 1024) req.write(body.slice(at, at + 256 * 1024));
    req.end();
  });
}

async function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { code?: number; message: string };
  }
  throw new Error('expected a rejection');
}

describe('MCP access rules (/mcp)', function () {
  this.timeout(60_000);
  const driver = scriptedDriverFactory();
  const t = stackPerSuite({
    env: { MCP_ALLOWED_ORIGINS: `${ALLOWED_ORIGIN}, http://localhost:6274` },
    options: { driverFactory: driver },
  });

  describe('authentication before any MCP exchange', () => {
    const expectInvalidKey = async (res: Response) => {
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.match(/^Bearer\b/);
      expect(await res.json()).to.deep.equal({ error: 'Invalid API key' });
    };

    it('answers 401 with WWW-Authenticate: Bearer and {error} for no key, an unknown key, a revoked key', async () => {
      await expectInvalidKey(await postMcp(t.baseUrl, INITIALIZE));
      await expectInvalidKey(await postMcp(t.baseUrl, INITIALIZE, { Authorization: 'Bearer sk_unknown' }));
      const revoked = await t.createToken();
      await t.revokeToken(revoked.id);
      await expectInvalidKey(await postMcp(t.baseUrl, INITIALIZE, { 'X-API-Key': revoked.apiKey }));
      await expectInvalidKey(await fetch(`${t.baseUrl}/mcp`, { method: 'GET' }));
      await expectInvalidKey(await fetch(`${t.baseUrl}/mcp`, { method: 'DELETE' }));
    });

    it('accepts the key as Authorization: Bearer and as X-API-Key', async () => {
      const key = await t.createToken();
      const ways: Array<Record<string, string>> = [
        { Authorization: `Bearer ${key.apiKey}` },
        { 'X-API-Key': key.apiKey },
      ];
      for (const headers of ways) {
        const res = await postMcp(t.baseUrl, INITIALIZE, headers);
        expect(res.status).to.equal(200);
        expect(res.headers.get('mcp-session-id')).to.be.a('string');
      }
    });

    for (const { era, label } of ERAS) {
      it(`${label}: a key revoked while its client is connected fails from its next request`, async () => {
        const key = await t.createToken();
        const mcp = await connectMcp(t.baseUrl, era, { apiKey: key.apiKey });
        expect((await mcp.call('list_meetings')).isError).to.not.equal(true);
        await t.revokeToken(key.id);
        const err = await rejection(mcp.call('list_meetings'));
        expect(err.message).to.match(/401|Invalid API key|Unauthorized/);
        await mcp.close().catch(() => {});
      });
    }
  });

  describe('transport guards', () => {
    let apiKey: string;
    before(async () => {
      apiKey = (await t.createToken()).apiKey;
    });

    it('refuses an Origin not on MCP_ALLOWED_ORIGINS with 403; allows listed origins and requests without one', async () => {
      const headers = { 'X-API-Key': apiKey };
      const evil = await postMcp(t.baseUrl, INITIALIZE, { ...headers, Origin: 'https://evil.example' });
      expect(evil.status).to.equal(403);
      expect(await evil.json()).to.deep.equal({ error: 'Origin not allowed' });
      const opaque = await postMcp(t.baseUrl, INITIALIZE, { ...headers, Origin: 'null' });
      expect(opaque.status).to.equal(403);
      // The Origin check comes first: a rebinding page learns nothing about keys.
      expect((await postMcp(t.baseUrl, INITIALIZE, { Origin: 'https://evil.example' })).status).to.equal(403);
      for (const origin of [ALLOWED_ORIGIN, 'http://localhost:6274']) {
        expect((await postMcp(t.baseUrl, INITIALIZE, { ...headers, Origin: origin })).status).to.equal(200);
      }
      expect((await postMcp(t.baseUrl, INITIALIZE, headers)).status).to.equal(200);
    });

    it('limits the body to 1 MB as REST does (413), and answers malformed JSON with a JSON-RPC parse error', async () => {
      const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, pad: 'x'.repeat(1024 * 1024) } });
      const res = await postMcp(t.baseUrl, big, { 'X-API-Key': apiKey });
      expect(res.status).to.equal(413);
      expect(await res.json()).to.deep.equal({ error: 'Request body too large' });
      // Without a Content-Length (chunked) the limit is found while reading, with the same answer.
      const chunked = await postChunked(t.baseUrl, big, { 'X-API-Key': apiKey });
      expect(chunked.status).to.equal(413);
      expect(JSON.parse(chunked.text)).to.deep.equal({ error: 'Request body too large' });
      const bad = await postMcp(t.baseUrl, '{"jsonrpc":', { 'X-API-Key': apiKey });
      expect(bad.status).to.equal(400);
      expect(((await bad.json()) as { error: { code: number } }).error.code).to.equal(-32700);
    });

    it('answers other methods 405', async () => {
      const res = await fetch(`${t.baseUrl}/mcp`, { method: 'PUT', headers: { 'X-API-Key': apiKey } });
      expect(res.status).to.equal(405);
      expect(await res.json()).to.deep.equal({ error: 'Method not allowed' });
    });
  });

  describe('isolation between keys', () => {
    let owner: { id: string; apiKey: string };
    let other: { id: string; apiKey: string };
    let meetingId: string;
    let uiMeetingId: string;
    let uiUrl: string;

    before(async () => {
      owner = await t.createToken();
      other = await t.createToken();
      const owned = await connectMcp(t.baseUrl, 'modern', { apiKey: owner.apiKey });
      const started = await owned.call('start_meeting', { url: meetUrl(), callbackUrl: CALLBACK, title: 'Private' });
      meetingId = String(started.structuredContent!.meetingId);
      const meeting = await driver.meeting(meetingId);
      await eventually(async () => {
        const listed = await owned.call('list_meetings');
        return (listed.structuredContent!.meetings as Array<{ status: string }>)[0]?.status === 'live';
      }, 'live');
      meeting.segment({ speaker: 'Alice', text: 'owner only words' });
      await eventually(
        async () =>
          (await owned.call('get_transcript', { meetingId })).structuredContent!.segments instanceof Array &&
          ((await owned.call('get_transcript', { meetingId })).structuredContent!.segments as unknown[]).length === 1,
        'a segment',
      );
      await owned.close();
      // A meeting started from the web UI belongs to no key.
      uiUrl = meetUrl();
      const ui = await call(
        t.stack.bus,
        routes.meetings.start,
        {
          caller: { kind: 'ui', accountId: 'account-1' },
          url: uiUrl,
          title: 'From the UI',
          callbackUrl: null,
          project: 'ui',
          saveTranscript: true,
        },
        { timeoutMs: 30_000 },
      );
      uiMeetingId = ui.meetingId;
    });

    for (const { era, label } of ERAS) {
      describe(label, () => {
        const mcp = mcpPerSuite(() => connectMcp(t.baseUrl, era, { apiKey: other.apiKey }));

        it("tools: another key's and the UI's meetings are not found, not listed, not stoppable", async () => {
          const listed = (await mcp.call('list_meetings')).structuredContent!.meetings as Array<{ meetingId: string }>;
          expect(listed.map((m) => m.meetingId)).to.not.include.members([meetingId, uiMeetingId]);
          for (const id of [meetingId, uiMeetingId]) {
            for (const tool of ['get_transcript', 'get_document', 'stop_meeting']) {
              const result = await mcp.call(tool, { meetingId: id });
              expect(result, `${tool} ${id}`).to.deep.include({ isError: true });
              expect(result.content[0].text).to.equal('Not found');
            }
          }
          const again = await mcp.call('start_meeting', { url: uiUrl, callbackUrl: CALLBACK });
          expect(again.content[0].text).to.equal('Meeting URL is already being transcribed');
        });

        it("resources: another key's transcript reads as not found and is not listed", async () => {
          for (const id of [meetingId, uiMeetingId]) {
            const err = await rejection(mcp.readResource(transcriptUri(id)));
            expectResourceNotFound(err, transcriptUri(id));
          }
          const uris: string[] = [];
          let cursor: string | undefined;
          do {
            const page = await mcp.listResources(cursor);
            uris.push(...page.resources.map((r) => r.uri));
            cursor = page.nextCursor;
          } while (cursor);
          expect(uris.filter((uri) => uri.includes(meetingId) || uri.includes(uiMeetingId))).to.deep.equal([]);
          expect(uris.some((uri) => uri.startsWith('notetaker://projects/ui/'))).to.equal(false);
        });

        it("subscriptions: following another key's transcript is refused", async () => {
          for (const id of [meetingId, uiMeetingId]) {
            const err = await rejection(mcp.follow(transcriptUri(id), () => {}));
            expectResourceNotFound(err, transcriptUri(id));
          }
          const other = await rejection(mcp.follow('notetaker://projects/api/meetings/x.md', () => {}));
          expect(other.code, other.message).to.equal(-32602);
          expect(other.message).to.include('Only meeting transcripts');
        });
      });
    }

    it("the owner lists and reads its own transcript resource, equal to REST's body", async () => {
      const mcp = await connectMcp(t.baseUrl, 'legacy', { apiKey: owner.apiKey });
      const first = await mcp.listResources();
      expect(first.resources.map((r) => r.uri)).to.include(transcriptUri(meetingId));
      const [content] = await mcp.readResource(transcriptUri(meetingId));
      const rest = await t.api(`/meetings/${meetingId}/transcript`, { apiKey: owner.apiKey });
      expect(JSON.parse(content.text!)).to.deep.equal(await rest.json());
      await mcp.close();
    });
  });
});

describe('MCP sessions for 2025-era clients', function () {
  this.timeout(30_000);
  const t = stackPerSuite({ env: { MCP_SESSION_IDLE_MS: '600', MCP_MAX_SESSIONS_PER_KEY: '3' } });

  const open = async (apiKey: string) => {
    const res = await postMcp(t.baseUrl, INITIALIZE, { 'X-API-Key': apiKey });
    return { res, sessionId: res.headers.get('mcp-session-id') };
  };
  const list = (apiKey: string, sessionId: string) =>
    postMcp(
      t.baseUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'X-API-Key': apiKey, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-11-25' },
    );

  it('binds a session to its key: the same id with another key is an unknown session (404)', async () => {
    const a = await t.createToken();
    const b = await t.createToken();
    const { sessionId } = await open(a.apiKey);
    expect((await list(a.apiKey, sessionId!)).status).to.equal(200);
    const stolen = await list(b.apiKey, sessionId!);
    expect(stolen.status).to.equal(404);
    expect(((await stolen.json()) as { error: { message: string } }).error.message).to.equal('Session not found');
    expect((await list(a.apiKey, sessionId!)).status).to.equal(200);
  });

  it('ends a session on DELETE, and after MCP_SESSION_IDLE_MS without requests', async () => {
    const key = await t.createToken();
    const { sessionId } = await open(key.apiKey);
    const del = await fetch(`${t.baseUrl}/mcp`, {
      method: 'DELETE',
      headers: { 'X-API-Key': key.apiKey, 'Mcp-Session-Id': sessionId!, 'MCP-Protocol-Version': '2025-11-25' },
    });
    expect(del.status).to.equal(200);
    expect((await list(key.apiKey, sessionId!)).status).to.equal(404);

    const idle = (await open(key.apiKey)).sessionId!;
    // Requests keep it alive past the idle time...
    for (let i = 0; i < 4; i++) {
      await sleep(300);
      expect((await list(key.apiKey, idle)).status).to.equal(200);
    }
    // ...silence ends it.
    await sleep(900);
    expect((await list(key.apiKey, idle)).status).to.equal(404);
  });

  it('bounds open sessions per key with a clear error; another key is not affected; a freed slot is usable', async () => {
    const key = await t.createToken();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await open(key.apiKey)).sessionId!);
    const refused = await open(key.apiKey);
    expect(refused.res.status).to.equal(429);
    expect(refused.sessionId).to.equal(null);
    expect(((await refused.res.json()) as { error: { message: string } }).error.message).to.equal(
      'Too many open MCP sessions for this API key (at most 3): end one with DELETE /mcp or let it expire',
    );
    const other = await t.createToken();
    expect((await open(other.apiKey)).res.status).to.equal(200);
    await fetch(`${t.baseUrl}/mcp`, {
      method: 'DELETE',
      headers: { 'X-API-Key': key.apiKey, 'Mcp-Session-Id': ids[0], 'MCP-Protocol-Version': '2025-11-25' },
    });
    expect((await open(key.apiKey)).res.status).to.equal(200);
  });

  it('the 1.x SDK client sees the limit as an error naming it', async () => {
    const key = await t.createToken();
    const clients: McpTestClient[] = [];
    for (let i = 0; i < 3; i++) clients.push(await connectMcp(t.baseUrl, 'legacy', { apiKey: key.apiKey }));
    const err = await rejection(connectMcp(t.baseUrl, 'legacy', { apiKey: key.apiKey }));
    expect(err.message).to.include('Too many open MCP sessions for this API key');
    for (const client of clients) await client.close();
    const again = await connectMcp(t.baseUrl, 'legacy', { apiKey: key.apiKey });
    await again.close();
  });
});
