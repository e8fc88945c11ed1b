/**
 * A meeting's transcript and document through the gateway, on the real stack: meetings are started
 * over REST and run by meeting-session's actors against the scripted meeting platform (the only
 * stand-in: every service of ours is real), documents are real files in a temporary CONTENT_ROOT.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import type { Project, ProjectMeeting, SearchResult } from '@notetaker/contracts';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';
import { eventuallyPasses } from '../../../test/support/wait.js';

interface Started {
  meetingId: string;
  status: string;
  platform: string;
  project: string;
  documentPath: string | null;
}

function frontMatterOf(markdown: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  expect(match, markdown.slice(0, 200)).to.not.equal(null);
  return parse(match![1]) as Record<string, unknown>;
}

describe('transcript and document REST', () => {
  let t: TestStack;
  let driver: ScriptedDriverFactory;
  let receiver: http.Server;
  let callbackUrl: string;
  let owner: string;
  let other: string;

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    driver = scriptedDriverFactory();
    t = await startTestStack({ FLUSH_INTERVAL_MS: '200' }, { driverFactory: driver });
    owner = (await t.createToken()).apiKey;
    other = (await t.createToken()).apiKey;
  });
  after(async () => {
    await t?.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** A fresh Meet URL per meeting (one URL is one meeting while it is live). */
  const meetUrl = () => {
    const letters = (n: number) =>
      Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)]).join('');
    return `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
  };

  async function start(body: Record<string, unknown> = {}, apiKey = owner): Promise<Started> {
    const res = await t.api('/meetings/start', {
      method: 'POST',
      apiKey,
      json: { url: meetUrl(), callbackUrl, title: 'Weekly sync', project: 'rest-tests', ...body },
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    return (await res.json()) as Started;
  }

  async function live(meetingId: string) {
    const meeting = await driver.meeting(meetingId);
    await eventuallyPasses(async () => {
      const res = await t.api(`/meetings/${meetingId}/transcript`, { apiKey: owner });
      expect(((await res.json()) as { status: string }).status).to.equal('live');
    });
    return meeting;
  }

  async function stop(meetingId: string) {
    const res = await t.api('/meetings/stop', { method: 'POST', apiKey: owner, json: { meetingId } });
    expect(res.status).to.equal(200);
  }

  const transcript = async (meetingId: string, apiKey = owner) => {
    const res = await t.api(`/meetings/${meetingId}/transcript`, { apiKey });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const documentOf = (meetingId: string, apiKey = owner) => t.api(`/meetings/${meetingId}/document`, { apiKey });

  it('serves the transcript of a live meeting, and of the same meeting once it ended', async () => {
    const started = await start();
    const meeting = await live(started.meetingId);
    meeting.segment({ speaker: 'Alice', text: 'Hello everyone' });
    meeting.segment({ speaker: 'Bob', text: 'Hi Alice' });
    const during = await eventuallyPasses(async () => {
      const res = await transcript(started.meetingId);
      expect(res.body.segments).to.have.length(2);
      return res;
    });
    expect(during.status).to.equal(200);
    expect(during.body).to.deep.include({
      meetingId: started.meetingId,
      status: 'live',
      project: 'rest-tests',
      documentPath: started.documentPath,
    });
    const segments = during.body.segments as Array<Record<string, string>>;
    expect(segments.map((s) => [s.speaker, s.text])).to.deep.equal([
      ['Alice', 'Hello everyone'],
      ['Bob', 'Hi Alice'],
    ]);
    for (const s of segments) expect(s.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // speaker, text, timestamp, and where the words came from.
    expect(Object.keys(segments[0]).sort()).to.deep.equal(['source', 'speaker', 'text', 'timestamp']);

    await stop(started.meetingId);
    const after = await eventuallyPasses(async () => {
      const res = await transcript(started.meetingId);
      expect(res.body.status).to.equal('ended');
      return res;
    });
    expect(after.body.segments).to.deep.equal(segments);
  });

  it('serves the flushed markdown while live and the completed one after, as a download', async () => {
    const started = await start({ title: 'Café ☕ "sync"', project: 'rest-docs' });
    expect(started.documentPath).to.match(
      /^deployed-md-files\/docs\/rest-docs\/meetings\/[A-Z][a-z]+ \d{1,2}(st|nd|rd|th) - Café ☕ sync\.md$/,
    );
    const meeting = await live(started.meetingId);
    // Nothing said, nothing flushed yet: no document to serve.
    const early = await documentOf(started.meetingId);
    expect([early.status, await early.json()]).to.deep.equal([404, { error: 'No saved document for this meeting' }]);

    meeting.participants(['Alice']);
    meeting.segment({ speaker: 'Alice', text: 'The launch moves to Tuesday' });
    const res = await eventuallyPasses(async () => {
      const r = await documentOf(started.meetingId);
      expect(r.status).to.equal(200);
      return r;
    });
    expect(res.headers.get('content-type')).to.equal('text/markdown; charset=utf-8');
    const filename = path.posix.basename(started.documentPath!);
    const disposition = res.headers.get('content-disposition')!;
    expect(disposition).to.match(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    expect(decodeURIComponent(disposition.split("filename*=UTF-8''")[1])).to.equal(filename);
    const markdown = await res.text();
    expect(frontMatterOf(markdown)).to.deep.include({
      title: 'Café ☕ "sync"',
      meetingId: started.meetingId,
      status: 'in_progress',
      platform: 'google_meet',
      project: 'rest-docs',
    });
    expect(markdown).to.contain('The launch moves to Tuesday');
    expect(markdown).to.equal(fs.readFileSync(path.join(t.contentRoot, started.documentPath!), 'utf8'));

    // The project was created by this first save and lists the meeting; search finds its words.
    const projects = (await (await t.api('/projects', { apiKey: owner })).json()) as { projects: Project[] };
    expect(projects.projects).to.deep.include({ id: 'rest-docs', name: 'Rest Docs', hasMeetings: true });
    const found = (await (await t.api('/search?q=tuesday&project=rest-docs', { apiKey: other })).json()) as {
      results: SearchResult[];
    };
    expect(found.results.map((r) => r.meetingId)).to.deep.equal([started.meetingId]);

    await stop(started.meetingId);
    const completed = await eventuallyPasses(async () => {
      const text = await (await documentOf(started.meetingId)).text();
      expect(frontMatterOf(text).status).to.equal('completed');
      return text;
    });
    expect(frontMatterOf(completed).participants).to.deep.equal(['Alice']);
    const history = (await (await t.api('/projects/rest-docs/meetings', { apiKey: owner })).json()) as {
      meetings: ProjectMeeting[];
    };
    expect(history.meetings).to.have.length(1);
    expect(history.meetings[0]).to.deep.include({
      filename,
      title: 'Café ☕ "sync"',
      meetingId: started.meetingId,
      status: 'completed',
      participants: ['Alice'],
    });
  });

  it('names the download with a plain filename when the name is ASCII', async () => {
    const started = await start({ title: 'Plain title' });
    const meeting = await live(started.meetingId);
    meeting.segment({ speaker: 'Alice', text: 'words' });
    const res = await eventuallyPasses(async () => {
      const r = await documentOf(started.meetingId);
      expect(r.status).to.equal(200);
      return r;
    });
    expect(res.headers.get('content-disposition')).to.equal(
      `attachment; filename="${path.posix.basename(started.documentPath!)}"`,
    );
    await res.arrayBuffer();
    await stop(started.meetingId);
  });

  it('names a meeting started without a title after its platform', async () => {
    const started = await start({ title: undefined });
    expect(path.posix.basename(started.documentPath!)).to.match(
      /^[A-Z][a-z]+ \d{1,2}(st|nd|rd|th) - Google Meet meeting( \(\d+\))?\.md$/,
    );
    await live(started.meetingId);
    await stop(started.meetingId);
  });

  it('keeps the transcript but no document when saveTranscript is false', async () => {
    const reader = (await t.createToken([])).apiKey;
    const started = await start({ saveTranscript: false }, reader);
    expect(started.documentPath).to.equal(null);
    const meeting = await driver.meeting(started.meetingId);
    meeting.segment({ speaker: 'Alice', text: 'not saved to a file' });
    const res = await eventuallyPasses(async () => {
      const r = await transcript(started.meetingId, reader);
      expect(r.body.segments).to.have.length(1);
      return r;
    });
    expect(res.body.documentPath).to.equal(null);
    const doc = await documentOf(started.meetingId, reader);
    expect([doc.status, await doc.json()]).to.deep.equal([404, { error: 'No saved document for this meeting' }]);
    await t.api('/meetings/stop', { method: 'POST', apiKey: reader, json: { meetingId: started.meetingId } });
  });

  it('answers 404 Not found alike for another key, an unknown meeting and a malformed id', async () => {
    const started = await start();
    const meeting = await live(started.meetingId);
    meeting.segment({ speaker: 'Alice', text: 'private words' });
    await eventuallyPasses(async () => expect((await documentOf(started.meetingId)).status).to.equal(200));
    const cases = [
      [started.meetingId, other],
      ['meeting_1732183200000_abcdefghij', owner],
      ['not-a-meeting', owner],
      ['..%2F..%2Fetc%2Fpasswd', owner],
    ] as const;
    for (const [meetingId, apiKey] of cases) {
      for (const resource of ['transcript', 'document']) {
        const res = await t.api(`/meetings/${meetingId}/${resource}`, { apiKey });
        expect([res.status, await res.json()], `${resource} of ${meetingId}`).to.deep.equal([
          404,
          { error: 'Not found' },
        ]);
      }
    }
    await stop(started.meetingId);
  });

  it('asks for an API key', async () => {
    expect((await t.api('/meetings/meeting_1732183200000_abcdefghij/transcript')).status).to.equal(401);
    expect((await t.api('/meetings/meeting_1732183200000_abcdefghij/document')).status).to.equal(401);
  });
});
