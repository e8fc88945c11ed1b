/**
 * Streams end with their grant (identity/grants.ts): an MCP `subscriptions/listen` stream
 * (2026-07-28), a 2025-era session's GET stream, and the web live view end within 1 s of their
 * key's revocation or their web session's sign-out: on one gateway, and across two gateways on
 * one NATS where the revocation happens on the other one (the broadcast). The periodic check
 * (STREAM_GRANT_CHECK_MS, 15 s here, so it cannot be what passes the 1 s tests) ends a live view
 * whose session expired with no broadcast at all.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { connectBus } from '@notetaker/bus';
import { natsForSuite, type NatsServerHandle } from '@notetaker/bus/test-support';
import { openStore, type Store } from '@notetaker/store';
import type { RunningGateway } from '../src/index.js';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';
import { INITIALIZE, postMcp } from './mcp/clients.js';
import { startGateway } from './web/support/gateway-only.js';
import { WebClient } from './web/support/web-client.js';

const WITHIN_MS = 1000;
const LEGACY = { 'MCP-Protocol-Version': '2025-11-25' };
const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const meetUrl = () => `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
const transcriptUri = (meetingId: string) => `notetaker://meetings/${meetingId}/transcript`;

/** Resolves with the time the server ended the stream (its body's end); rejects after 10 s. */
function endOf(res: Response): Promise<number> {
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const timeout = setTimeout(() => void reader.cancel(), 10_000);
  return (async () => {
    try {
      for (;;) {
        const { done } = await reader.read();
        if (done) return Date.now();
      }
    } finally {
      clearTimeout(timeout);
    }
  })();
}

async function expectEndsWithin(ended: Promise<number>, act: () => Promise<unknown>): Promise<void> {
  let at = 0;
  void ended.then(() => (at = at || Date.now()));
  await new Promise((resolve) => setTimeout(resolve, 200)); // the stream is open, nothing ends it
  expect(at, 'the stream ended before its grant did').to.equal(0);
  await act();
  const from = Date.now();
  const end = await Promise.race([ended, new Promise<number>((r) => setTimeout(() => r(-1), 5_000))]);
  expect(end, 'the stream did not end').to.not.equal(-1);
  expect(end - from).to.be.below(WITHIN_MS);
}

/** A gateway, by its HTTP address. */
interface Side {
  baseUrl: string;
}

/** A meeting the key started: one it may subscribe to (meeting-session answers whose it is). */
async function startMeeting(side: Side, apiKey: string): Promise<string> {
  const res = await fetch(`${side.baseUrl}/api/v1/meetings/start`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: meetUrl(), callbackUrl: 'http://127.0.0.1:9/hook', saveTranscript: false }),
  });
  expect(res.status, await res.clone().text()).to.equal(201);
  return String(((await res.json()) as { meetingId: string }).meetingId);
}

/** A 2026-07-28 client listening to the transcript, and when its subscription ends. */
async function modernListen(side: Side, apiKey: string, meetingId: string) {
  const client = new Client({ name: 'grants', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const transport = new StreamableHTTPClientTransport(new URL(`${side.baseUrl}/mcp`), {
    requestInit: { headers: { 'X-API-Key': apiKey } },
  });
  await client.connect(transport);
  const subscription = await client.listen({ resourceSubscriptions: [transcriptUri(meetingId)] });
  const closed = subscription.closed.then((how) => {
    expect(how).to.equal('remote'); // the server ended it; the client did not
    return Date.now();
  });
  return { client, closed };
}

/** A 2025-era session subscribed to the transcript, and its GET stream (where notifications come). */
async function legacyStream(side: Side, apiKey: string, meetingId: string): Promise<{ ended: Promise<number> }> {
  const init = await postMcp(side.baseUrl, INITIALIZE, { 'X-API-Key': apiKey });
  const session = { 'X-API-Key': apiKey, 'Mcp-Session-Id': init.headers.get('mcp-session-id')!, ...LEGACY };
  await postMcp(side.baseUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  const subscribed = await postMcp(
    side.baseUrl,
    { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: transcriptUri(meetingId) } },
    session,
  );
  expect(await subscribed.json()).to.deep.include({ result: {} });
  // Wrapped: an async function returning the promise itself would wait for the end.
  return { ended: endOf(await fetch(`${side.baseUrl}/mcp`, { headers: { ...session, Accept: 'text/event-stream' } })) };
}

/** A web meeting started by `browser` and its live view opened on `side` with the same cookie. */
async function liveView(browser: WebClient, side: Side): Promise<{ ended: Promise<number> }> {
  const started = await browser.post('/meetings', {
    _csrf: await browser.csrf('/meetings'),
    url: meetUrl(),
    title: 'Grant test',
    project: 'grants',
    saveTranscript: 'false',
  });
  expect(started.status, started.text.slice(0, 300)).to.equal(303);
  const meetingId = started.location!.split('/').pop()!;
  const cookie = `nt_session=${browser.cookies.get('nt_session')}`;
  const res = await fetch(`${side.baseUrl}/meetings/${meetingId}/events`, {
    headers: { Cookie: cookie, Accept: 'text/event-stream' },
  });
  return { ended: endOf(res) };
}

async function signOut(browser: WebClient): Promise<void> {
  const out = await browser.post('/signout', { _csrf: await browser.csrf('/meetings') });
  expect(out.location).to.equal('/signin?notice=signed-out');
}

describe('streams end with their grant: one gateway', function () {
  this.timeout(60_000);
  let t: TestStack;

  before(async () => {
    t = await startTestStack({}, { driverFactory: scriptedDriverFactory() });
  });
  after(() => t.stop());

  it('a 2026-07-28 subscriptions/listen stream ends within 1 s of its key being revoked (CLI)', async () => {
    const key = await t.createToken();
    const meetingId = await startMeeting(t, key.apiKey);
    const { client, closed } = await modernListen(t, key.apiKey, meetingId);
    await expectEndsWithin(closed, () => t.revokeToken(key.id));
    await client.close();
  });

  it("a 2025-era session's stream ends within 1 s of its key being revoked; the key is refused after", async () => {
    const key = await t.createToken();
    const meetingId = await startMeeting(t, key.apiKey);
    const { ended } = await legacyStream(t, key.apiKey, meetingId);
    await expectEndsWithin(ended, () => t.revokeToken(key.id));
    expect((await postMcp(t.baseUrl, INITIALIZE, { 'X-API-Key': key.apiKey })).status).to.equal(401);
  });

  it('the web live view ends within 1 s of its session signing out; another session keeps its view', async () => {
    const browser = new WebClient(t.baseUrl);
    await browser.setup('owner@example.com', 'a long enough password');
    const other = new WebClient(t.baseUrl);
    expect((await other.signIn('owner@example.com', 'a long enough password')).status).to.equal(303);
    const { ended: mine } = await liveView(browser, t);
    let otherEnded = false;
    void (await liveView(other, t)).ended.then(() => (otherEnded = true));
    await expectEndsWithin(mine, () => signOut(browser));
    expect(otherEnded, "the other session's view ended too").to.equal(false);
  });
});

describe('streams end with their grant: two gateways on one NATS', function () {
  this.timeout(60_000);
  let nats: NatsServerHandle | null = null;
  let t: TestStack | undefined;
  /** Two gateways of one deployment: one NATS, one identity store (MongoDB's part, shared here). */
  const gateways: Array<RunningGateway & Side> = [];
  const closing: Array<() => Promise<void>> = [];
  let store: Store;

  before(async function () {
    const suite = await natsForSuite(this);
    nats = suite.server;
    t = await startTestStack({ NATS_URL: suite.url }, { driverFactory: scriptedDriverFactory() });
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-grants-'));
    store = await openStore({ service: 'gateway', dataDir: storeDir });
    closing.push(async () => {
      await store.close();
      fs.rmSync(storeDir, { recursive: true, force: true });
    });
    for (const name of ['a', 'b']) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `notetaker-gateway-${name}-`));
      fs.mkdirSync(path.join(dataDir, 'gateway'), { mode: 0o700 }); // where each one's admin socket goes
      const bus = await connectBus({ natsUrl: suite.url, name: `gateway-${name}` });
      const running = await startGateway(bus, store, {
        DATA_DIR: dataDir,
        NATS_URL: suite.url,
        SECRETS_KEY: 'grants-test-secrets-key',
      });
      gateways.push(Object.assign(running, { baseUrl: `http://127.0.0.1:${running.port}` }));
      closing.unshift(async () => {
        await running.stop();
        await bus.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      });
    }
  });
  after(async () => {
    for (const close of closing) await close();
    await t?.stop();
    await nats?.stop();
  });

  const token = async () =>
    (await gateways[0].admin({ command: 'token.create', name: 'grants', capabilities: [] })) as {
      id: string;
      apiKey: string;
    };

  it('a listen stream on gateway B ends within 1 s of its key being revoked on gateway A (CLI)', async () => {
    const [a, b] = gateways;
    const key = await token();
    const { client, closed } = await modernListen(b, key.apiKey, await startMeeting(b, key.apiKey));
    await expectEndsWithin(closed, () => a.admin({ command: 'token.revoke', id: key.id }));
    await client.close();
  });

  it("a 2025-era session's stream on gateway B ends within 1 s of its key being revoked on A's tokens page", async () => {
    const [a, b] = gateways;
    const browser = new WebClient(a.baseUrl);
    await browser.setup('owner@example.com', 'a long enough password');
    const created = await browser.post('/settings/tokens', {
      _csrf: await browser.csrf('/settings/tokens'),
      name: 'mine',
    });
    expect(created.status).to.equal(303);
    const shown = await browser.get(created.location!);
    const apiKey = /value="(sk_[^"]+)"/.exec(shown.text)![1];
    const { id } = ((await a.admin({ command: 'token.list' })) as Array<{ id: string; name: string }>).find(
      (tok) => tok.name === 'mine',
    )!;
    const { ended } = await legacyStream(b, apiKey, await startMeeting(b, apiKey));
    await expectEndsWithin(ended, async () => {
      const revoked = await browser.post(`/settings/tokens/${id}/revoke`, {
        _csrf: await browser.csrf('/settings/tokens'),
      });
      expect(revoked.status).to.equal(303);
    });
  });

  it('the live view on gateway B ends within 1 s of its session signing out on gateway A', async () => {
    const [a, b] = gateways;
    const browser = new WebClient(a.baseUrl);
    expect((await browser.signIn('owner@example.com', 'a long enough password')).status).to.equal(303);
    const { ended } = await liveView(browser, b);
    await expectEndsWithin(ended, () => signOut(browser));
  });
});

describe('streams end with their grant: the periodic check', function () {
  this.timeout(30_000);
  let t: TestStack;

  before(async () => {
    t = await startTestStack(
      { WEB_SESSION_MAX_MS: '2500', STREAM_GRANT_CHECK_MS: '200' },
      { driverFactory: scriptedDriverFactory() },
    );
  });
  after(() => t.stop());

  it('ends a live view whose session expired, with no request and no broadcast to say so', async () => {
    const browser = new WebClient(t.baseUrl);
    // The session's clock starts somewhere between these two readings (the gateway stamps it
    // before its answer arrives), so the end is bounded from each side by the matching one.
    const askedAt = Date.now();
    await browser.setup('owner@example.com', 'a long enough password');
    const signedInAt = Date.now();
    const { ended } = await liveView(browser, t);
    const at = await ended;
    expect(at - askedAt).to.be.at.least(2500);
    expect(at - signedInAt).to.be.at.most(2500 + 200 + WITHIN_MS);
  });
});
