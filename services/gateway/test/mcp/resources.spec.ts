/**
 * MCP resources and subscriptions on the whole stack (scripted meeting platform): the saved
 * documents of the key's meetings listed page by page and read as markdown, a live transcript
 * followed to its end through a subscription on both eras (`subscriptions/listen` and
 * `resources/subscribe`) with the transcript read incrementally by `after`; and, over NATS, a
 * client of one gateway hearing about a meeting run by the services of another process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { connectBus } from '@notetaker/bus';
import { natsForSuite, type NatsServerHandle } from '@notetaker/bus/test-support';
import { loadBaseConfig } from '@notetaker/config';
import { createMetricsRegistry, silentLogger } from '@notetaker/observability';
import type { RunningService } from '@notetaker/service-runtime';
import { openStore, type Store } from '@notetaker/store';
import { gatewayService, type RunningGateway } from '../../src/index.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';
import { connectMcp, ERAS, type McpTestClient } from './clients.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

const CALLBACK = 'http://127.0.0.1:9/hook';
const letters = (n: number) =>
  Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
const meetUrl = () => `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
const transcriptUri = (meetingId: string) => `notetaker://meetings/${meetingId}/transcript`;

interface Segment {
  speaker: string;
  text: string;
}

/**
 * Follows a meeting as an agent would: subscribe, and on every update read what is new with
 * `after`, until the transcript says the meeting ended. Resolves with every segment read.
 */
async function followToEnd(mcp: McpTestClient, meetingId: string, act: () => Promise<void>) {
  const read: Segment[] = [];
  const updates: string[] = [];
  let status = '';
  let reading = Promise.resolve();
  const readNew = async () => {
    const args = read.length === 0 ? { meetingId } : { meetingId, after: read.length - 1 };
    const result = await mcp.call('get_transcript', args);
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    read.push(...(result.structuredContent!.segments as Segment[]));
    status = String(result.structuredContent!.status);
  };
  const stop = await mcp.follow(transcriptUri(meetingId), (uri) => {
    updates.push(uri);
    reading = reading.then(readNew);
  });
  await act();
  await eventually(
    async () => {
      await reading;
      return status === 'ended';
    },
    `${meetingId} ended, through notifications`,
    15_000,
  );
  await stop();
  return { read, updates };
}

describe('MCP resources and subscriptions', function () {
  this.timeout(60_000);
  let t: TestStack;
  let driver: ScriptedDriverFactory;
  let key: { id: string; apiKey: string };

  before(async () => {
    driver = scriptedDriverFactory();
    t = await startTestStack({ FLUSH_INTERVAL_MS: '200' }, { driverFactory: driver });
    key = await t.createToken();
    // 70 documents of meetings no key started, so the listing has pages to walk.
    const dir = path.join(t.contentRoot, 'deployed-md-files/docs/archive/meetings');
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 70; i++) {
      fs.writeFileSync(path.join(dir, `Old ${i}.md`), `---\ntitle: Old ${i}\nstatus: completed\n---\n`);
    }
  });
  after(() => t.stop());

  async function startLive(mcp: McpTestClient, title: string) {
    const started = await mcp.call('start_meeting', { url: meetUrl(), callbackUrl: CALLBACK, title });
    const meetingId = String(started.structuredContent!.meetingId);
    const meeting = await driver.meeting(meetingId);
    await eventually(
      async () => (await mcp.call('get_transcript', { meetingId })).structuredContent!.status === 'live',
      'live',
    );
    return { meetingId, meeting, started: started.structuredContent! };
  }

  it('offers both resource templates', async () => {
    for (const { era } of ERAS) {
      const mcp = await connectMcp(t.baseUrl, era, { apiKey: key.apiKey });
      const templates = await mcp.listResourceTemplates();
      expect(templates.map((r) => [r.uriTemplate, r.mimeType])).to.deep.equal([
        ['notetaker://meetings/{meetingId}/transcript', 'application/json'],
        ['notetaker://projects/{project}/meetings/{filename}', 'text/markdown'],
      ]);
      await mcp.close();
    }
  });

  for (const { era, label } of ERAS) {
    it(`${label}: follows a live meeting to its end through a subscription, reading by \`after\``, async () => {
      const mcp = await connectMcp(t.baseUrl, era, { apiKey: key.apiKey });
      const { meetingId, meeting } = await startLive(mcp, `Followed ${era}`);
      const said: Segment[] = [
        { speaker: 'Alice', text: 'Good morning' },
        { speaker: 'Bob', text: 'Morning, shall we start' },
        { speaker: 'Alice', text: 'The release is on Friday' },
      ];
      const { read, updates } = await followToEnd(mcp, meetingId, async () => {
        for (const segment of said) {
          meeting.segment(segment);
          // Paced like people speaking, so the follower reads them as they come, by `after`.
          await sleep(50);
        }
        const stopped = await mcp.call('stop_meeting', { meetingId });
        expect(stopped.structuredContent).to.deep.equal({ meetingId, status: 'stopping' });
      });
      expect(read.map((s) => ({ speaker: s.speaker, text: s.text }))).to.deep.equal(said);
      // One update per segment and per status change (leaving, ended) at least, all for this URI.
      expect(updates.length).to.be.at.least(said.length + 2);
      expect(new Set(updates)).to.deep.equal(new Set([transcriptUri(meetingId)]));
      await mcp.close();
    });
  }

  it("lists the key's saved documents page by page and reads each as the REST document", async () => {
    const mcp = await connectMcp(t.baseUrl, 'modern', { apiKey: key.apiKey });
    const mine = new Map<string, string>();
    for (const title of ['Listed one', 'Listed two']) {
      const { meetingId, meeting, started } = await startLive(mcp, title);
      meeting.segment({ speaker: 'Alice', text: `${title} words` });
      await mcp.call('stop_meeting', { meetingId });
      await eventually(
        async () => (await mcp.call('get_transcript', { meetingId })).structuredContent!.status === 'ended',
        'ended',
      );
      mine.set(String(started.documentPath).split('/').at(-1)!, meetingId);
    }
    // The 1.x client hands back each page; the 2.x client walks them itself and aggregates.
    const paged = await connectMcp(t.baseUrl, 'legacy', { apiKey: key.apiKey });
    const uris: string[] = [];
    let pages = 0;
    let cursor: string | undefined;
    do {
      const page = await paged.listResources(cursor);
      pages++;
      uris.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor);
    await paged.close();
    expect(pages).to.be.at.least(2);
    const aggregated = await mcp.listResources();
    expect(aggregated.nextCursor).to.equal(undefined);
    expect(aggregated.resources.map((r) => r.uri)).to.deep.equal(uris);
    const documents = uris.filter((uri) => uri.startsWith('notetaker://projects/'));
    expect(documents.some((uri) => uri.startsWith('notetaker://projects/archive/'))).to.equal(false);
    for (const [filename, meetingId] of mine) {
      const uri = `notetaker://projects/api/meetings/${encodeURIComponent(filename)}`;
      expect(documents).to.include(uri);
      const [content] = await mcp.readResource(uri);
      expect(content.mimeType).to.equal('text/markdown');
      const rest = await t.api(`/meetings/${meetingId}/document`, { apiKey: key.apiKey });
      expect(content.text).to.equal(await rest.text());
    }
    const other = await t.createToken();
    const stranger = await connectMcp(t.baseUrl, 'legacy', { apiKey: other.apiKey });
    const [filename] = [...mine.keys()];
    const err = await stranger.readResource(`notetaker://projects/api/meetings/${encodeURIComponent(filename)}`).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).to.include('Resource not found');
    await stranger.close();
    await mcp.close();
  });
});

describe('MCP subscriptions across processes over NATS', function () {
  this.timeout(60_000);
  let nats: NatsServerHandle | null = null;
  let t: TestStack | undefined;
  let driver: ScriptedDriverFactory;
  const lone: {
    gateway?: RunningGateway & RunningService;
    store?: Store;
    dataDir?: string;
    close?: () => Promise<void>;
  } = {};

  before(async function () {
    const suite = await natsForSuite(this);
    nats = suite.server;
    driver = scriptedDriverFactory();
    t = await startTestStack({ NATS_URL: suite.url }, { driverFactory: driver });
    // A second gateway, alone in its "process": its own bus connection, store and identity.
    lone.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-gateway-'));
    const config = loadBaseConfig({ DATA_DIR: lone.dataDir, PORT: '0', NATS_URL: suite.url, LOG_LEVEL: 'silent' });
    const bus = await connectBus({ natsUrl: suite.url, name: 'gateway-b' });
    lone.store = await openStore({ service: 'gateway', dataDir: lone.dataDir });
    lone.gateway = await gatewayService().start({
      bus,
      store: lone.store,
      config,
      logger: silentLogger(),
      metrics: createMetricsRegistry('gateway'),
    });
    lone.close = async () => {
      await lone.gateway?.stop();
      await lone.store?.close();
      await bus.close();
    };
  });
  after(async () => {
    await lone.close?.();
    if (lone.dataDir) fs.rmSync(lone.dataDir, { recursive: true, force: true });
    await t?.stop();
    await nats?.stop();
  });

  it("a client of one gateway follows a meeting run by another process's meeting-session", async () => {
    const token = (await lone.gateway!.admin({
      command: 'token.create',
      name: 'b',
      capabilities: ['knowledge:write'],
    })) as {
      apiKey: string;
    };
    const mcp = await connectMcp(`http://127.0.0.1:${lone.gateway!.port}`, 'modern', { apiKey: token.apiKey });
    const started = await mcp.call('start_meeting', { url: meetUrl(), callbackUrl: CALLBACK, saveTranscript: false });
    expect(started.isError, JSON.stringify(started.content)).to.not.equal(true);
    const meetingId = String(started.structuredContent!.meetingId);
    const meeting = await driver.meeting(meetingId);
    await eventually(
      async () => (await mcp.call('get_transcript', { meetingId })).structuredContent!.status === 'live',
      'live',
    );
    const { read } = await followToEnd(mcp, meetingId, async () => {
      meeting.segment({ speaker: 'Carol', text: 'Heard across processes' });
      await eventually(
        async () =>
          ((await mcp.call('get_transcript', { meetingId })).structuredContent!.segments as unknown[]).length === 1,
        'the segment, read through the other gateway',
      );
      await mcp.call('stop_meeting', { meetingId });
    });
    expect(read.map((s) => s.text)).to.deep.equal(['Heard across processes']);
    await mcp.close();
  });
});
