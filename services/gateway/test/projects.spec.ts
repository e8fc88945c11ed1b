/**
 * Projects (docs/api/reference.md#projects) through the gateway, on the real stack with real
 * files in a temporary CONTENT_ROOT.
 * Saved transcripts are written by transcript-store driven over the stack's bus, the way a
 * meeting's actor drives it, so these tests do not depend on a meeting platform.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes, type Project, type ProjectMeeting } from '@notetaker/contracts';
import type { TestStack } from '../../../test/support/stack.js';
import { stackPerSuite } from './support/stack-per-suite.js';

async function saveTranscript(
  t: TestStack,
  options: {
    project: string;
    title: string | null;
    startedAt: string;
    texts?: string[];
    status?: 'in_progress' | 'completed';
  },
) {
  const meetingId = `meeting_${Date.parse(options.startedAt)}_${crypto.randomBytes(6).toString('hex')}`;
  const { documentPath } = await call(t.stack.bus, routes.transcripts.open, {
    meetingId,
    project: options.project,
    title: options.title,
    platform: 'google_meet',
    startedAt: options.startedAt,
    saveTranscript: true,
  });
  if (documentPath === null) throw new Error('transcript-store reserved no document path');
  for (const [index, text] of (options.texts ?? ['hello']).entries()) {
    await call(t.stack.bus, routes.transcripts.append, {
      meetingId,
      index,
      segment: { speaker: 'Alice', text, timestamp: options.startedAt },
    });
  }
  await call(t.stack.bus, routes.transcripts.flush, {
    meetingId,
    status: options.status ?? 'completed',
    participants: ['Alice', 'Bob'],
  });
  return { meetingId, documentPath };
}

describe('projects REST', () => {
  const t = stackPerSuite();

  const docs = () => path.join(t.contentRoot, 'deployed-md-files/docs');
  const get = async <T>(pathname: string) => {
    const res = await t.api(pathname, { apiKey: t.apiKey });
    return { status: res.status, body: (await res.json()) as T };
  };

  it('lists every project: created on first save, and made by hand, with names and hasMeetings', async () => {
    fs.mkdirSync(path.join(docs(), 'hand-made'), { recursive: true });
    fs.writeFileSync(path.join(docs(), 'hand-made/_category_.json'), JSON.stringify({ label: 'Made by Hand' }));
    await saveTranscript(t, { project: 'first-save', title: 'Kickoff', startedAt: '2024-11-21T10:00:00.000Z' });
    const { status, body } = await get<{ projects: Project[] }>('/projects');
    expect(status).to.equal(200);
    expect(body.projects).to.deep.include.members([
      { id: 'hand-made', name: 'Made by Hand', hasMeetings: false },
      { id: 'first-save', name: 'First Save', hasMeetings: true },
    ]);
  });

  it('lists a project history newest first, read from the front matter', async () => {
    const older = await saveTranscript(t, {
      project: 'history',
      title: 'Older',
      startedAt: '2024-01-05T09:00:00.000Z',
    });
    const newer = await saveTranscript(t, {
      project: 'history',
      title: 'Newer',
      startedAt: '2024-03-01T09:00:00.000Z',
      status: 'in_progress',
    });
    const { status, body } = await get<{ project: string; meetings: ProjectMeeting[] }>('/projects/history/meetings');
    expect(status).to.equal(200);
    expect(body).to.deep.equal({
      project: 'history',
      meetings: [
        {
          filename: 'March 1st - Newer.md',
          title: 'Newer',
          date: '2024-03-01T09:00:00.000Z',
          meetingId: newer.meetingId,
          status: 'in_progress',
          participants: ['Alice', 'Bob'],
        },
        {
          filename: 'January 5th - Older.md',
          title: 'Older',
          date: '2024-01-05T09:00:00.000Z',
          meetingId: older.meetingId,
          status: 'completed',
          participants: ['Alice', 'Bob'],
        },
      ],
    });
    expect(path.posix.basename(older.documentPath)).to.equal('January 5th - Older.md');
  });

  it('round-trips nasty titles from the saved document to the history exactly (fuzz cases)', async () => {
    const titles = [
      '---\nx: y',
      '../../etc/passwd',
      '..',
      'CON',
      'nul\0byte',
      'x'.repeat(300),
      'Q3: "plans" & #tags',
      "it's a 'quote'",
      'emoji 🎉 café',
      ' leading and trailing ',
    ];
    const saved = [];
    for (const [i, title] of titles.entries()) {
      const startedAt = new Date(Date.UTC(2024, 5, 1, 0, i)).toISOString();
      saved.push({ title, ...(await saveTranscript(t, { project: 'fuzz', title, startedAt })) });
    }
    const { body } = await get<{ meetings: ProjectMeeting[] }>('/projects/fuzz/meetings');
    for (const s of saved) {
      const entry = body.meetings.find((m) => m.meetingId === s.meetingId);
      expect(entry, JSON.stringify(s.title)).to.not.equal(undefined);
      expect(entry!.title).to.equal(s.title);
      expect(entry!.filename).to.equal(path.posix.basename(s.documentPath));
      const file = path.join(t.contentRoot, s.documentPath);
      expect(path.dirname(file)).to.equal(path.join(docs(), 'fuzz/meetings'));
      expect(fs.existsSync(file)).to.equal(true);
    }
    expect(fs.readdirSync(path.join(docs(), 'fuzz/meetings'))).to.have.length(titles.length);
  });

  it('lists a file with broken front matter with what it can read, and follows hand removals', async () => {
    const dir = path.join(docs(), 'broken/meetings');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'May 2nd - Notes.md'), '---\ntitle: [broken\n---\n');
    fs.writeFileSync(path.join(dir, 'Plain.md'), 'no front matter at all');
    let res = await get<{ meetings: ProjectMeeting[] }>('/projects/broken/meetings');
    expect(res.status).to.equal(200);
    expect(res.body.meetings.map((m) => [m.filename, m.title]).sort()).to.deep.equal([
      ['May 2nd - Notes.md', 'Notes'],
      ['Plain.md', 'Plain'],
    ]);
    fs.rmSync(path.join(dir, 'Plain.md'));
    res = await get<{ meetings: ProjectMeeting[] }>('/projects/broken/meetings');
    expect(res.body.meetings.map((m) => m.filename)).to.deep.equal(['May 2nd - Notes.md']);
  });

  it('answers 404 Project not found for an unknown project', async () => {
    const res = await get('/projects/no-such-project/meetings');
    expect(res).to.deep.equal({ status: 404, body: { error: 'Project not found' } });
  });

  for (const bad of ['..%2F..%2Fetc', '.git', '..%5C..', 'a.b', 'has%20space', 'x'.repeat(65), '-leading', 'a%00b']) {
    it(`answers 400 for the malformed project id ${bad}`, async () => {
      const res = await get(`/projects/${bad}/meetings`);
      expect(res).to.deep.equal({
        status: 400,
        body: { error: 'projectId must match ^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' },
      });
    });
  }

  it('asks for an API key', async () => {
    expect((await t.api('/projects/history/meetings')).status).to.equal(401);
  });
});
