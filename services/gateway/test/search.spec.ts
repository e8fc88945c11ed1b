/**
 * GET /api/v1/search through the gateway on the real stack. Transcripts are saved by
 * transcript-store driven over the stack's bus, as a meeting's actor drives it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes, type SearchResult } from '@notetaker/contracts';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';
import { eventually } from '../../../test/support/wait.js';
import { stackPerSuite } from './support/stack-per-suite.js';

async function saveTranscript(
  t: TestStack,
  options: { project?: string; title?: string; startedAt?: string; texts: string[]; flush?: boolean },
) {
  const startedAt = options.startedAt ?? '2024-11-21T10:00:00.000Z';
  const meetingId = `meeting_${Date.parse(startedAt)}_${crypto.randomBytes(6).toString('hex')}`;
  const { documentPath } = await call(t.stack.bus, routes.transcripts.open, {
    meetingId,
    project: options.project ?? 'api',
    title: options.title ?? 'Weekly sync',
    platform: 'google_meet',
    startedAt,
    saveTranscript: true,
  });
  for (const [index, text] of options.texts.entries()) {
    await call(t.stack.bus, routes.transcripts.append, {
      meetingId,
      index,
      segment: { speaker: 'Alice', text, timestamp: new Date(Date.parse(startedAt) + index * 2000).toISOString() },
    });
  }
  if (options.flush ?? true) {
    await call(t.stack.bus, routes.transcripts.flush, { meetingId, status: 'in_progress', participants: [] });
  }
  return { meetingId, documentPath, startedAt };
}

describe('search REST', () => {
  const t = stackPerSuite({ capabilities: [] });

  const search = async (query: string) => {
    const res = await t.api(`/search?${query}`, { apiKey: t.apiKey });
    return { status: res.status, body: (await res.json()) as { results: SearchResult[]; error?: string } };
  };
  const snippets = async (query: string) => (await search(query)).body.results.map((r) => r.snippet);

  it('answers each result with project, meeting, title, date, path, speaker, timestamp, snippet and kind', async () => {
    const m = await saveTranscript(t, {
      project: 'infra',
      title: 'Infra review',
      texts: ['warm up', 'the zeppelin migration is approved'],
    });
    const { status, body } = await search('q=zeppelin');
    expect(status).to.equal(200);
    expect(body).to.deep.equal({
      results: [
        {
          project: 'infra',
          meetingId: m.meetingId,
          title: 'Infra review',
          date: m.startedAt,
          documentPath: m.documentPath,
          speaker: 'Alice',
          timestamp: '2024-11-21T10:00:02.000Z',
          snippet: 'the zeppelin migration is approved',
          kind: 'segment',
        },
      ],
    });
  });

  it('ranks all words above some, and a quoted phrase above scattered words', async () => {
    await saveTranscript(t, {
      texts: [
        'the walrus budget is late',
        'the walrus budget review for next quarter',
        'a walrus review of the roadmap',
        'walrus: the quarter is next on the list',
        'walrus plans for the next quarter',
      ],
    });
    const all = await snippets(`q=${encodeURIComponent('walrus budget review')}`);
    expect(all[0]).to.equal('the walrus budget review for next quarter');
    expect(all.slice(1, 3)).to.have.members(['the walrus budget is late', 'a walrus review of the roadmap']);
    const phrase = await snippets(`q=${encodeURIComponent('walrus "next quarter"')}`);
    expect(phrase.slice(0, 2)).to.have.members([
      'walrus plans for the next quarter',
      'the walrus budget review for next quarter',
    ]);
    expect(phrase[2]).to.equal('walrus: the quarter is next on the list');
  });

  it('is case- and accent-insensitive', async () => {
    await saveTranscript(t, { texts: ['Réunion au CAFÉ de la gare'] });
    expect(await snippets('q=cafe%20reunion')).to.deep.equal(['Réunion au CAFÉ de la gare']);
    expect(await snippets('q=R%C3%89UNION')).to.deep.equal(['Réunion au CAFÉ de la gare']);
  });

  it('filters by project', async () => {
    await saveTranscript(t, { project: 'north', texts: ['penguin north'] });
    await saveTranscript(t, { project: 'south', texts: ['penguin south'] });
    expect(await snippets('q=penguin&project=south')).to.deep.equal(['penguin south']);
    expect((await snippets('q=penguin')).sort()).to.deep.equal(['penguin north', 'penguin south']);
  });

  it('answers 20 results by default and at most 100', async () => {
    await saveTranscript(t, { texts: Array.from({ length: 120 }, (_, i) => `ocelot number ${i}`) });
    expect(await snippets('q=ocelot')).to.have.length(20);
    expect(await snippets('q=ocelot&limit=5')).to.have.length(5);
    expect(await snippets('q=ocelot&limit=500')).to.have.length(100);
  });

  it('finds words once they are flushed to a document', async () => {
    const m = await saveTranscript(t, { texts: ['a quokka appears'], flush: false });
    expect(await snippets('q=quokka')).to.deep.equal([]);
    await call(t.stack.bus, routes.transcripts.flush, {
      meetingId: m.meetingId,
      status: 'in_progress',
      participants: [],
    });
    expect(await snippets('q=quokka')).to.deep.equal(['a quokka appears']);
  });

  const bad: Array<[string, string]> = [
    ['', 'q is required and must be a string'],
    ['q=', 'q must not be empty'],
    ['q=%20%20', 'q must not be empty'],
    [`q=${'x'.repeat(201)}`, 'q must be at most 200 characters'],
    ['q=a&q=b', 'q is required and must be a string'],
    ['q=a&limit=0', 'limit must be a positive integer'],
    ['q=a&limit=abc', 'limit must be a number'],
    ['q=a&limit=1.5', 'limit must be a positive integer'],
    ['q=a&project=..%2Fetc', 'project must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'],
    ['q=a&page=2', 'Unknown field: page'],
  ];
  for (const [query, message] of bad) {
    it(`answers 400 for ?${query.slice(0, 30)}`, async () => {
      expect(await search(query)).to.deep.equal({ status: 400, body: { error: message } });
    });
  }

  it('asks for an API key', async () => {
    expect((await t.api('/search?q=x')).status).to.equal(401);
  });
});

describe('search REST across a restart', () => {
  it('still finds saved transcripts after the whole stack restarts on the same data', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-restart-'));
    try {
      let t = await startTestStack({ DATA_DIR: dataDir });
      const { apiKey } = await t.createToken([]);
      await saveTranscript(t, { texts: ['the narwhal survives restarts'] });
      await t.stop();
      t = await startTestStack({ DATA_DIR: dataDir });
      try {
        // The index is rebuilt in the background: until then search answers 503, so a client retries.
        const res = await eventually(async () => {
          const r = await t.api('/search?q=narwhal', { apiKey });
          return r.status !== 503 && r;
        }, 'search to answer something else than 503 once the index is rebuilt');
        expect(res.status).to.equal(200);
        const body = (await res.json()) as { results: SearchResult[] };
        expect(body.results.map((r) => r.snippet)).to.deep.equal(['the narwhal survives restarts']);
      } finally {
        await t.stop();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
