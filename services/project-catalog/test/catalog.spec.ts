import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { type Project, type ProjectMeeting } from '@notetaker/contracts';
import { startCatalog, type CatalogHarness } from './harness.js';
import { rejection } from '../../../test/support/rejection.js';

const doc = (fm: Record<string, unknown> | string) =>
  typeof fm === 'string'
    ? fm
    : `---\n${Object.entries(fm)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join('\n')}\n---\n\n# body\n`;

describe('project-catalog over the bus', () => {
  let c: CatalogHarness;
  beforeEach(async () => {
    c = await startCatalog();
  });
  afterEach(() => c.dispose());

  const list = () => c.request<{ projects: Project[] }>('list', {}).then((r) => r.projects);
  const meetings = (projectId: string) =>
    c.request<{ project: string; meetings: ProjectMeeting[] }>('meetings', { projectId });

  describe('svc.projects.list', () => {
    it('answers no projects while the content root has none', async () => {
      expect(await list()).to.deep.equal([]);
    });

    it('lists every project folder, including ones made by hand, with a display name', async () => {
      fs.mkdirSync(path.join(c.docs, 'weekly-sync_notes'), { recursive: true });
      fs.mkdirSync(path.join(c.docs, 'api'), { recursive: true });
      c.write('labelled/_category_.json', JSON.stringify({ label: 'Customer Success', position: 2 }));
      c.write('yamlish/_category_.yml', 'label: "Platform: Core"\n');
      c.write('broken-meta/_category_.json', '{ not json');
      // Not projects: hidden folders, names outside the id rule, plain files.
      fs.mkdirSync(path.join(c.docs, '.git'), { recursive: true });
      fs.mkdirSync(path.join(c.docs, 'has space'), { recursive: true });
      c.write('README.md', '# docs');
      expect(await list()).to.deep.equal([
        { id: 'api', name: 'Api', hasMeetings: false },
        { id: 'broken-meta', name: 'Broken Meta', hasMeetings: false },
        { id: 'labelled', name: 'Customer Success', hasMeetings: false },
        { id: 'weekly-sync_notes', name: 'Weekly Sync Notes', hasMeetings: false },
        { id: 'yamlish', name: 'Platform: Core', hasMeetings: false },
      ]);
    });

    it('follows files added and removed by hand: hasMeetings, new and deleted projects, renamed labels', async () => {
      fs.mkdirSync(path.join(c.docs, 'p/meetings'), { recursive: true });
      c.write('p/meetings/.hidden.md', 'x');
      c.write('p/meetings/notes.txt', 'x');
      fs.mkdirSync(path.join(c.docs, 'p/meetings/folder.md'));
      expect(await list()).to.deep.equal([{ id: 'p', name: 'P', hasMeetings: false }]);

      const file = c.write('p/meetings/November 21st - Sync.md', doc({ title: 'Sync' }));
      expect((await list())[0].hasMeetings).to.equal(true);
      fs.rmSync(file);
      expect((await list())[0].hasMeetings).to.equal(false);

      c.write('p/_category_.json', JSON.stringify({ label: 'First' }));
      expect((await list())[0].name).to.equal('First');
      c.write('p/_category_.json', JSON.stringify({ label: 'Second name' }));
      expect((await list())[0].name).to.equal('Second name');

      fs.rmSync(path.join(c.docs, 'p'), { recursive: true });
      fs.mkdirSync(path.join(c.docs, 'q'));
      expect(await list()).to.deep.equal([{ id: 'q', name: 'Q', hasMeetings: false }]);
    });

    it('trusts a folder left unchanged for a while and still sees what changes in it later', async () => {
      fs.mkdirSync(path.join(c.docs, 'old/meetings'), { recursive: true });
      const past = new Date(Date.now() - 60_000);
      fs.utimesSync(path.join(c.docs, 'old/meetings'), past, past);
      expect((await list())[0].hasMeetings).to.equal(false);
      expect((await list())[0].hasMeetings).to.equal(false);
      c.write('old/meetings/a.md', doc({ title: 'a' }));
      expect((await list())[0].hasMeetings).to.equal(true);
    });
  });

  describe('svc.projects.meetings', () => {
    /** Front matter fields that come back unchanged in a meeting's entry, as documents below carry them. */
    const november21 = {
      meetingId: 'meeting_1732183200000_abcdefghij',
      date: '2024-11-21T10:00:00.000Z',
      status: 'completed',
      participants: ['Alice', 'Bob'],
    };

    it('lists the history newest first, from the front matter', async () => {
      c.write(
        'acme/meetings/November 21st - Sync.md',
        doc({ title: 'Sync: the "real" one', ...november21, platform: 'google_meet', project: 'acme' }),
      );
      c.write(
        'acme/meetings/December 1st - Later.md',
        doc({ title: 'Later', meetingId: 'meeting_2', date: '2024-12-01T09:00:00.000Z', status: 'in_progress' }),
      );
      expect(await meetings('acme')).to.deep.equal({
        project: 'acme',
        meetings: [
          {
            filename: 'December 1st - Later.md',
            title: 'Later',
            date: '2024-12-01T09:00:00.000Z',
            meetingId: 'meeting_2',
            status: 'in_progress',
            participants: [],
          },
          { filename: 'November 21st - Sync.md', title: 'Sync: the "real" one', ...november21 },
        ],
      });
    });

    it('reads a document as transcript-store writes it, caption language and bot account included', async () => {
      c.write(
        'acme/meetings/November 21st - Planung Q3.md',
        [
          '---',
          'title: "Planung: Q3"',
          'meetingId: "meeting_1732183200000_abcdefghij"',
          'date: "2024-11-21T10:00:00.000Z"',
          'status: "completed"',
          'participants:',
          '  - "Alice"',
          '  - "Bob"',
          'platform: "teams"',
          'project: "acme"',
          'language: "de-DE"',
          'signedInAs: "notetaker@example.com"',
          '---',
          '',
          '# Planung: Q3',
          '',
          '**Alice** (00:00:00): Wir halten den Start an, weil er die Freigabe blockiert.',
          '',
        ].join('\n'),
      );
      expect((await meetings('acme')).meetings).to.deep.equal([
        { filename: 'November 21st - Planung Q3.md', title: 'Planung: Q3', ...november21 },
      ]);
    });

    it('lists files with broken or missing front matter with what can be read, never failing (fuzz cases)', async () => {
      const mtime = new Date('2023-05-06T07:08:09.000Z');
      const cases: Record<string, string> = {
        'March 3rd - No front matter.md': '# just a heading\n',
        'March 4th - Unclosed.md': '---\ntitle: never closed\n',
        'Bad yaml.md': '---\ntitle: [unclosed\n---\n',
        'A list.md': '---\n- a\n- b\n---\n',
        'A scalar.md': '---\njust text\n---\n',
        'Empty.md': '',
        'Binary.md': '\0\x01\x02\xff---\n',
        'Wrong types.md':
          '---\ntitle: 42\ndate: not a date\nstatus: archived\nparticipants: Alice\nmeetingId: [1]\n---\n',
        'Injected.md': '---\ntitle: "---\\nx: y"\nparticipants: [Alice, 7, null, {a: 1}]\n---\n',
        'Aliases.md': `---\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\ntitle: laughs\n---\n`,
        'Crlf.md': '---\r\ntitle: windows\r\ndate: 2020-01-02\r\n---\r\nbody',
        'Bom.md': '\ufeff---\ntitle: bom\n---\n',
        'Huge.md': `---\ntitle: huge\n${'pad: x\n'.repeat(20_000)}---\n`,
      };
      for (const [name, content] of Object.entries(cases)) {
        const file = c.write(`fuzz/meetings/${name}`, content);
        fs.utimesSync(file, mtime, mtime);
      }
      const { meetings: found } = await meetings('fuzz');
      const byName = Object.fromEntries(found.map((m) => [m.filename, m]));
      expect(Object.keys(byName).sort()).to.deep.equal(Object.keys(cases).sort());
      const fallback = (filename: string, title: string) => ({
        filename,
        title,
        date: mtime.toISOString(),
        meetingId: '',
        status: 'completed',
        participants: [],
      });
      expect(byName['March 3rd - No front matter.md']).to.deep.equal(
        fallback('March 3rd - No front matter.md', 'No front matter'),
      );
      expect(byName['March 4th - Unclosed.md']).to.deep.equal(fallback('March 4th - Unclosed.md', 'Unclosed'));
      expect(byName['Bad yaml.md']).to.deep.equal(fallback('Bad yaml.md', 'Bad yaml'));
      expect(byName['A list.md'].title).to.equal('A list');
      expect(byName['Empty.md'].title).to.equal('Empty');
      expect(byName['Binary.md'].title).to.equal('Binary');
      expect(byName['Wrong types.md']).to.deep.equal({
        ...fallback('Wrong types.md', '42'),
        participants: [],
      });
      expect(byName['Injected.md']).to.deep.include({ title: '---\nx: y', participants: ['Alice', '7'] });
      expect(byName['Aliases.md'].title).to.equal('Aliases');
      expect(byName['Crlf.md']).to.deep.include({ title: 'windows', date: '2020-01-02T00:00:00.000Z' });
      expect(byName['Bom.md'].title).to.equal('bom');
      expect(byName['Huge.md'].title).to.equal('Huge');
    });

    it('skips links, folders and hidden or temporary files', async () => {
      c.write('p/meetings/real.md', doc({ title: 'real' }));
      c.write('p/meetings/.real.md.abc123.tmp', 'partial');
      c.write('p/meetings/.hidden.md', doc({ title: 'hidden' }));
      fs.mkdirSync(path.join(c.docs, 'p/meetings/dir.md'));
      fs.symlinkSync('/etc/passwd', path.join(c.docs, 'p/meetings/passwd.md'));
      expect((await meetings('p')).meetings.map((m) => m.filename)).to.deep.equal(['real.md']);
    });

    it('sees a file added, edited in place or removed by hand', async () => {
      const file = c.write('p/meetings/a.md', doc({ title: 'first', date: '2024-01-01T00:00:00.000Z' }));
      expect((await meetings('p')).meetings.map((m) => m.title)).to.deep.equal(['first']);
      fs.writeFileSync(file, doc({ title: 'edited', date: '2024-01-01T00:00:00.000Z' }));
      c.write('p/meetings/b.md', doc({ title: 'second', date: '2024-02-01T00:00:00.000Z' }));
      expect((await meetings('p')).meetings.map((m) => m.title)).to.deep.equal(['second', 'edited']);
      fs.rmSync(file);
      expect((await meetings('p')).meetings.map((m) => m.title)).to.deep.equal(['second']);
    });

    it('reads an unchanged file once, across restarts: its entry comes from the index', async () => {
      const file = c.write('p/meetings/a.md', doc({ title: 'indexed', date: '2024-01-01T00:00:00.000Z' }));
      const old = new Date(Date.now() - 60_000);
      fs.utimesSync(file, old, old);
      expect((await meetings('p')).meetings[0].title).to.equal('indexed');
      c = await c.restart();
      // Same size, same mtime, same inode: no reason to read it again (a change would alter one).
      const handle = fs.openSync(file, 'r+');
      fs.writeSync(handle, doc({ title: 'INDEXED', date: '2024-01-01T00:00:00.000Z' }), 0);
      fs.closeSync(handle);
      fs.utimesSync(file, old, old);
      expect((await meetings('p')).meetings[0].title).to.equal('indexed');
    });

    it('answers an existing project without meetings with an empty history', async () => {
      fs.mkdirSync(path.join(c.docs, 'empty'), { recursive: true });
      expect(await meetings('empty')).to.deep.equal({ project: 'empty', meetings: [] });
    });

    it('answers 404 Project not found for an unknown project, and 400 for a malformed id', async () => {
      const unknown = await rejection(meetings('nope'));
      expect([unknown.status, unknown.message]).to.deep.equal([404, 'Project not found']);
      c.write('file-not-dir', 'x');
      expect((await rejection(meetings('file-not-dir'))).status).to.equal(404);
      for (const bad of ['..', '../etc', 'a/b', '', '.git', 'x'.repeat(65)]) {
        expect((await rejection(meetings(bad))).status, bad).to.equal(400);
      }
    });
  });
});
