/**
 * The transcript-store contract over the bus: one suite, run against each store adapter
 * (transcripts.embedded.spec.ts always, transcripts.mongodb.spec.ts where MONGODB_URL is set).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startHarness, type Harness, type StoreFactory } from './support/harness.js';
import {
  appendAll,
  flush,
  frontMatterOf,
  newMeetingId,
  openMeeting,
  readDocument,
  segmentAt,
} from './support/meetings.js';
import { rejection } from '../../../test/support/rejection.js';
import { sleep } from '../../../test/support/wait.js';

export function transcriptStoreContract(factory: StoreFactory): void {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness(factory);
  });
  afterEach(async () => {
    await h.dispose();
  });
  after(() => factory.dispose());

  describe('document paths', () => {
    it('reserves <project>/meetings/<Month> <ordinal> - <title>.md at open, and writes exactly there', async () => {
      const m = await openMeeting(h, { project: 'acme', title: 'Weekly sync', startedAt: '2024-11-21T23:59:00.000Z' });
      expect(m.documentPath).to.equal('deployed-md-files/docs/acme/meetings/November 21st - Weekly sync.md');
      // The project folder appears on first save, not before.
      expect(fs.existsSync(path.join(h.contentRoot, 'deployed-md-files/docs/acme'))).to.equal(false);
      const saved = await flush(h, m.meetingId);
      expect(saved?.documentPath).to.equal(m.documentPath);
      expect(fs.existsSync(path.join(h.contentRoot, m.documentPath!))).to.equal(true);
    });

    it('answers the same path when the same meeting is opened again (a retried open)', async () => {
      const m = await openMeeting(h);
      const again = await openMeeting(h, { meetingId: m.meetingId });
      expect(again.documentPath).to.equal(m.documentPath);
    });

    it('numbers a second and third meeting of the same name on the same day (2), (3)', async () => {
      const paths = [];
      for (let i = 0; i < 3; i++) paths.push((await openMeeting(h, { title: 'Standup' })).documentPath);
      const other = await openMeeting(h, { title: 'standup', startedAt: '2024-11-22T09:00:00.000Z' });
      expect(paths.map((p) => path.posix.basename(p!))).to.deep.equal([
        'November 21st - Standup.md',
        'November 21st - Standup (2).md',
        'November 21st - Standup (3).md',
      ]);
      expect(other.documentPath).to.match(/November 22nd - standup\.md$/);
      // Names differing only in case would be one file on macOS or Windows: also numbered.
      const upper = await openMeeting(h, { title: 'STANDUP' });
      expect(upper.documentPath).to.match(/November 21st - STANDUP \(4\)\.md$/);
    });

    it('leaves a file put there by hand alone and takes the next name', async () => {
      const dir = path.join(h.contentRoot, 'deployed-md-files/docs/api/meetings');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'November 21st - Weekly sync.md'), 'hand-written notes');
      const m = await openMeeting(h);
      expect(m.documentPath).to.match(/November 21st - Weekly sync \(2\)\.md$/);
      await appendAll(h, m, ['hello']);
      await flush(h, m.meetingId);
      expect(fs.readFileSync(path.join(dir, 'November 21st - Weekly sync.md'), 'utf8')).to.equal('hand-written notes');
    });

    it('names a meeting without a title after its platform', async () => {
      const meet = await openMeeting(h, { title: null });
      const teams = await openMeeting(h, { title: null, platform: 'teams' });
      const blank = await openMeeting(h, { title: '   ' });
      expect(path.posix.basename(meet.documentPath!)).to.equal('November 21st - Google Meet meeting.md');
      expect(path.posix.basename(teams.documentPath!)).to.equal('November 21st - Microsoft Teams meeting.md');
      expect(path.posix.basename(blank.documentPath!)).to.equal('November 21st - Google Meet meeting (2).md');
      await flush(h, meet.meetingId);
      expect(frontMatterOf(readDocument(h, meet.documentPath!)).title).to.equal('Google Meet meeting');
    });

    it('refuses a project id outside the allowlist', async () => {
      for (const project of ['../../etc', '..', '', 'a/b', '.hidden', 'x'.repeat(65), 'nul\0']) {
        const err = await rejection(openMeeting(h, { project }));
        expect(err.status, project).to.equal(400);
      }
    });
  });

  describe('segments', () => {
    it('stores a retried append once and answers the segments in order with millisecond timestamps', async () => {
      const m = await openMeeting(h);
      const first = { meetingId: m.meetingId, index: 0, segment: { ...segmentAt(m.startedAt, 0, 'one') } };
      expect(await h.request('append', first)).to.deep.equal({ stored: true });
      expect(await h.request('append', first)).to.deep.equal({ stored: false });
      await h.request('append', {
        meetingId: m.meetingId,
        index: 1,
        segment: { speaker: 'Bob', text: 'two', timestamp: '2024-11-21T10:00:05Z' },
      });
      const reply = await h.request<{ segments: unknown[]; nextIndex: number | null }>('segments', {
        meetingId: m.meetingId,
      });
      expect(reply).to.deep.equal({
        segments: [
          { speaker: 'Alice', text: 'one', timestamp: '2024-11-21T10:00:00.000Z', source: 'captions' },
          { speaker: 'Bob', text: 'two', timestamp: '2024-11-21T10:00:05.000Z', source: 'captions' },
        ],
        nextIndex: null,
      });
    });

    it('keeps where the words came from, and speech heard but not transcribed', async () => {
      const m = await openMeeting(h);
      const heard = { speaker: 'Ada', text: 'from the audio', timestamp: '2024-11-21T10:00:00.000Z', source: 'audio' };
      const missed = {
        speaker: 'Ada',
        text: '',
        timestamp: '2024-11-21T10:00:09.000Z',
        source: 'audio',
        untranscribed: { reason: 'engine_unavailable', until: '2024-11-21T10:00:14.000Z' },
      };
      await h.request('append', { meetingId: m.meetingId, index: 0, segment: heard });
      await h.request('append', { meetingId: m.meetingId, index: 1, segment: missed });
      const reply = await h.request<{ segments: unknown[] }>('segments', { meetingId: m.meetingId });
      expect(reply.segments).to.deep.equal([heard, missed]);
    });

    it('keeps segments of a meeting that saves no transcript, and saves no document for it', async () => {
      const m = await openMeeting(h, { saveTranscript: false });
      expect(m.documentPath).to.equal(null);
      await appendAll(h, m, ['kept in the store']);
      expect(await flush(h, m.meetingId, 'completed')).to.equal(null);
      const reply = await h.request<{ segments: unknown[] }>('segments', { meetingId: m.meetingId });
      expect(reply.segments).to.have.length(1);
      const err = await rejection(h.request('document', { meetingId: m.meetingId }));
      expect([err.status, err.message]).to.deep.equal([404, 'No saved document for this meeting']);
      expect(fs.existsSync(path.join(h.contentRoot, 'deployed-md-files'))).to.equal(false);
    });

    it('pages a long transcript so no reply nears the bus payload limit', async () => {
      const m = await openMeeting(h);
      const long = 'x'.repeat(400);
      await appendAll(
        h,
        m,
        Array.from({ length: 900 }, (_, i) => `${i} ${long}`),
      );
      const first = await h.request<{ segments: Array<{ text: string }>; nextIndex: number | null }>('segments', {
        meetingId: m.meetingId,
      });
      expect(first.nextIndex).to.be.a('number');
      expect(JSON.stringify(first).length).to.be.below(512 * 1024);
      const rest = await h.request<{ segments: Array<{ text: string }>; nextIndex: number | null }>('segments', {
        meetingId: m.meetingId,
        fromIndex: first.nextIndex,
      });
      const all = [...first.segments, ...rest.segments];
      expect(rest.nextIndex).to.equal(null);
      expect(all.map((s) => Number(s.text.split(' ')[0]))).to.deep.equal([...Array(900).keys()]);
    });
  });

  describe('documents', () => {
    it('writes front matter and one line per segment, and reports what each flush wrote', async () => {
      const m = await openMeeting(h, { project: 'acme' });
      await appendAll(h, m, [
        { speaker: 'Alice', text: 'Hello everyone' },
        { speaker: 'Bob', text: 'Hi *Alice*' },
      ]);
      expect(await flush(h, m.meetingId, 'in_progress', ['Alice', 'Bob'])).to.deep.equal({
        documentPath: m.documentPath,
        segmentsWritten: 2,
        totalSegments: 2,
      });
      const content = readDocument(h, m.documentPath!);
      expect(frontMatterOf(content)).to.deep.equal({
        title: 'Weekly sync',
        meetingId: m.meetingId,
        date: '2024-11-21T10:00:00.000Z',
        status: 'in_progress',
        participants: ['Alice', 'Bob'],
        platform: 'google_meet',
        project: 'acme',
      });
      expect(content).to.contain('**Alice** (00:00:00): Hello everyone\n');
      expect(content).to.contain('**Bob** (00:00:02): Hi \\*Alice\\*\n');

      await appendAll(h, m, ['third'], 2);
      expect(await flush(h, m.meetingId, 'completed', ['Carol'])).to.deep.equal({
        documentPath: m.documentPath,
        segmentsWritten: 1,
        totalSegments: 3,
      });
      const final = readDocument(h, m.documentPath!);
      expect(frontMatterOf(final)).to.include({ status: 'completed' });
      // Everyone who was there, also those who left before the end.
      expect(frontMatterOf(final).participants).to.deep.equal(['Alice', 'Bob', 'Carol']);
      expect(final.match(/^\*\*/gm)).to.have.length(3);
    });

    it('leaves the file alone when nothing changed, and never takes a completed document back', async () => {
      const m = await openMeeting(h);
      await appendAll(h, m, ['one']);
      await flush(h, m.meetingId, 'completed');
      const file = path.join(h.contentRoot, m.documentPath!);
      const before = fs.statSync(file);
      // Long enough that a rewrite would show in the file's mtime.
      await sleep(20);
      expect(await flush(h, m.meetingId, 'in_progress')).to.deep.equal({
        documentPath: m.documentPath,
        segmentsWritten: 0,
        totalSegments: 1,
      });
      const after = fs.statSync(file);
      expect([after.ino, after.mtimeMs]).to.deep.equal([before.ino, before.mtimeMs]);
      expect(frontMatterOf(readDocument(h, m.documentPath!)).status).to.equal('completed');
    });

    it('writes a document for a meeting that ended without a word', async () => {
      const m = await openMeeting(h);
      expect(await flush(h, m.meetingId, 'completed')).to.deep.equal({
        documentPath: m.documentPath,
        segmentsWritten: 0,
        totalSegments: 0,
      });
      expect(frontMatterOf(readDocument(h, m.documentPath!)).status).to.equal('completed');
    });

    it('answers 404 to a flush of a meeting that was never opened', async () => {
      const err = await rejection(flush(h, newMeetingId()));
      expect(err.status).to.equal(404);
    });

    it('replaces the file atomically: a reader never sees half a document, no temporary file stays', async () => {
      const m = await openMeeting(h);
      const file = path.join(h.contentRoot, m.documentPath!);
      await appendAll(h, m, ['first words']);
      await flush(h, m.meetingId);
      let reading = true;
      let reads = 0;
      const reader = (async () => {
        while (reading) {
          const content = fs.readFileSync(file, 'utf8');
          frontMatterOf(content); // throws on a torn file
          expect(content.endsWith('\n\n'), content.slice(-80)).to.equal(true);
          reads++;
          await new Promise((r) => setImmediate(r));
        }
      })();
      const text = 'a fairly long sentence that makes the document grow quickly '.repeat(20);
      for (let i = 1; i <= 40; i++) {
        await appendAll(
          h,
          m,
          Array.from({ length: 10 }, () => text),
          i * 10 - 9,
        );
        await flush(h, m.meetingId);
      }
      reading = false;
      await reader;
      expect(reads).to.be.above(10);
      expect(fs.readdirSync(path.dirname(file))).to.deep.equal([path.basename(file)]);
    });

    it('serves the document in pages of one version, and says when it changed in between', async () => {
      const m = await openMeeting(h, { title: 'Café ☕ planning' });
      await appendAll(
        h,
        m,
        Array.from({ length: 600 }, (_, i) => `${i} ${'é'.repeat(300)} 🎉`),
      );
      // More than one batch of new segments in one flush.
      expect(await flush(h, m.meetingId)).to.include({ segmentsWritten: 600, totalSegments: 600 });
      type Page = { filename: string; content: string; version: string; nextOffset: number | null };
      const first = await h.request<Page>('document', { meetingId: m.meetingId });
      expect(first.filename).to.equal('November 21st - Café ☕ planning.md');
      expect(first.nextOffset).to.be.a('number');
      let content = first.content;
      let page = first;
      while (page.nextOffset !== null) {
        page = await h.request<Page>('document', {
          meetingId: m.meetingId,
          offset: page.nextOffset,
          version: first.version,
        });
        content += page.content;
      }
      expect(content).to.equal(readDocument(h, m.documentPath!));

      await appendAll(h, m, ['more'], 600);
      await flush(h, m.meetingId);
      const err = await rejection(
        h.request('document', { meetingId: m.meetingId, offset: first.nextOffset, version: first.version }),
      );
      expect([err.status, err.code]).to.deep.equal([409, 'document_changed']);
    });

    it('answers No saved document before the first flush and when the file was removed by hand', async () => {
      const m = await openMeeting(h);
      let err = await rejection(h.request('document', { meetingId: m.meetingId }));
      expect([err.status, err.message]).to.deep.equal([404, 'No saved document for this meeting']);
      await flush(h, m.meetingId);
      fs.rmSync(path.join(h.contentRoot, m.documentPath!));
      err = await rejection(h.request('document', { meetingId: m.meetingId }));
      expect([err.status, err.message]).to.deep.equal([404, 'No saved document for this meeting']);
    });

    it('writes nothing through a project folder that links outside the content root', async function () {
      const outside = fs.mkdtempSync(path.join(path.dirname(h.contentRoot), 'outside-'));
      const docs = path.join(h.contentRoot, 'deployed-md-files/docs');
      fs.mkdirSync(docs, { recursive: true });
      fs.symlinkSync(outside, path.join(docs, 'linked'));
      const m = await openMeeting(h, { project: 'linked' });
      const err = await rejection(flush(h, m.meetingId));
      expect(err.status).to.equal(500);
      expect(fs.readdirSync(outside)).to.deep.equal([]);
    });

    it('continues a document after a restart without losing or repeating a segment', async () => {
      const m = await openMeeting(h);
      await appendAll(h, m, ['One.', 'Two.']);
      await flush(h, m.meetingId);
      h = await h.restart();
      await appendAll(h, m, ['Three.'], 2);
      expect(await flush(h, m.meetingId, 'completed')).to.include({ segmentsWritten: 1, totalSegments: 3 });
      const lines = readDocument(h, m.documentPath!).match(/^\*\*Alice\*\* \(\d\d:\d\d:\d\d\): \w+\.$/gm);
      expect(lines?.map((l) => l.split(': ')[1])).to.deep.equal(['One.', 'Two.', 'Three.']);
    });
    it('after a restart, continues from the file: keeps a fix made by hand, and rebuilds a damaged or emptied one', async () => {
      const fixed = await openMeeting(h, { title: 'Fixed by hand' });
      const damaged = await openMeeting(h, { title: 'Damaged by hand' });
      // A live meeting's file is not synced to disk: a power loss can leave it empty.
      const emptied = await openMeeting(h, { title: 'Emptied by a power loss' });
      for (const m of [fixed, damaged, emptied]) {
        await appendAll(h, m, ['One.', 'Tow.', 'Three.']);
        await flush(h, m.meetingId);
      }
      const fixedFile = path.join(h.contentRoot, fixed.documentPath!);
      fs.writeFileSync(fixedFile, readDocument(h, fixed.documentPath!).replace(': Tow.', ': Two.'));
      const damagedFile = path.join(h.contentRoot, damaged.documentPath!);
      fs.writeFileSync(damagedFile, readDocument(h, damaged.documentPath!).slice(0, -30));
      fs.writeFileSync(path.join(h.contentRoot, emptied.documentPath!), '');
      h = await h.restart();
      for (const m of [fixed, damaged, emptied]) {
        await appendAll(h, m, ['Four.'], 3);
        await flush(h, m.meetingId, 'completed');
      }
      const words = (m: { documentPath: string | null }) =>
        readDocument(h, m.documentPath!)
          .match(/^\*\*Alice\*\* \(\d\d:\d\d:\d\d\): \w+\.$/gm)
          ?.map((l) => l.split(': ')[1]);
      expect(words(fixed)).to.deep.equal(['One.', 'Two.', 'Three.', 'Four.']);
      expect(words(damaged)).to.deep.equal(['One.', 'Tow.', 'Three.', 'Four.']);
      expect(words(emptied)).to.deep.equal(['One.', 'Tow.', 'Three.', 'Four.']);
    });

    it('writes a sentence the platform continued in a new caption block as one paragraph; the segments stay two', async () => {
      const m = await openMeeting(h);
      await appendAll(h, m, [
        { speaker: 'Alice', text: 'We should hold the launch since it blocks the' },
        { speaker: 'Alice', text: 'release and the finance team needs a week' },
        { speaker: 'Alice', text: 'to close the quarter.' },
        // A finished sentence: the same speaker's next words start a paragraph of their own.
        { speaker: 'Alice', text: 'Next topic.' },
        // Another speaker never continues Alice's paragraph, nor Alice theirs.
        { speaker: 'Bob', text: 'Agreed, and' },
        { speaker: 'Alice', text: 'thanks' },
      ]);
      await flush(h, m.meetingId);
      // Across flushes, and across a restart (the body is then taken back from the file).
      await appendAll(h, m, [{ speaker: 'Alice', text: 'everyone' }], 6);
      await flush(h, m.meetingId);
      h = await h.restart();
      await appendAll(
        h,
        m,
        [
          { speaker: 'Alice', text: 'for coming 「本日は」 終わり。」' },
          { speaker: 'Alice', text: 'Bye' },
        ],
        7,
      );
      expect(await flush(h, m.meetingId, 'completed')).to.include({ segmentsWritten: 2, totalSegments: 9 });

      const body = readDocument(h, m.documentPath!).split('\n# Weekly sync\n\n')[1];
      expect(body.split('\n\n').filter(Boolean)).to.deep.equal([
        '**Alice** (00:00:00): We should hold the launch since it blocks the release and the finance team needs a week to close the quarter.',
        '**Alice** (00:00:06): Next topic.',
        '**Bob** (00:00:08): Agreed, and',
        '**Alice** (00:00:10): thanks everyone for coming 「本日は」 終わり。」',
        '**Alice** (00:00:16): Bye',
      ]);
      // The segments are what was finalized, one by one: the unit of the events and of paging.
      const { segments } = await h.request<{ segments: Array<{ speaker: string; text: string }> }>('segments', {
        meetingId: m.meetingId,
      });
      expect(segments.map((s) => s.text)).to.deep.equal([
        'We should hold the launch since it blocks the',
        'release and the finance team needs a week',
        'to close the quarter.',
        'Next topic.',
        'Agreed, and',
        'thanks',
        'everyone',
        'for coming 「本日は」 終わり。」',
        'Bye',
      ]);
    });

    it('writes the caption language and the account the bot signed in as into the front matter', async () => {
      const m = await openMeeting(h, { language: 'de-DE' });
      await appendAll(h, m, ['Hallo.']);
      await flush(h, m.meetingId, 'in_progress', ['Alice'], 'notetaker@example.com');
      expect(frontMatterOf(readDocument(h, m.documentPath!))).to.deep.include({
        language: 'de-DE',
        signedInAs: 'notetaker@example.com',
      });
      // The latest flush names it, also with nothing else new.
      expect(await flush(h, m.meetingId, 'in_progress', [], 'bot@example.com')).to.include({ segmentsWritten: 0 });
      expect(frontMatterOf(readDocument(h, m.documentPath!)).signedInAs).to.equal('bot@example.com');
      // A flush that names none (an older sender) leaves it as it was.
      await flush(h, m.meetingId, 'completed');
      expect(frontMatterOf(readDocument(h, m.documentPath!))).to.deep.include({
        status: 'completed',
        language: 'de-DE',
        signedInAs: 'bot@example.com',
      });

      // A guest bot and no language asked for: neither key is written.
      const plain = await openMeeting(h);
      await flush(h, plain.meetingId, 'completed');
      expect(frontMatterOf(readDocument(h, plain.documentPath!))).to.not.have.any.keys('language', 'signedInAs');
    });
  });

  describe('search', () => {
    async function saved(
      texts: Array<string | { speaker: string; text: string }>,
      options: Parameters<typeof openMeeting>[1] = {},
    ) {
      const m = await openMeeting(h, options);
      await appendAll(h, m, texts);
      await flush(h, m.meetingId);
      return m;
    }
    type Results = { results: Array<Record<string, string>> };
    const search = (q: string, extra: Record<string, unknown> = {}) =>
      h.request<Results>('search', { q, ...extra }).then((r) => r.results);

    it('ranks segments with every word above those with some', async () => {
      await saved(['the budget is late', 'the budget review for next quarter', 'a review of the roadmap']);
      const results = await search('budget review');
      expect(results.map((r) => r.snippet)).to.deep.equal([
        'the budget review for next quarter',
        'the budget is late',
        'a review of the roadmap',
      ]);
    });

    it('ranks an exact quoted phrase above the same words scattered', async () => {
      await saved([
        'the quarter is next on the list, next to planning',
        'we will talk about the next quarter at length later today',
        'the quarter after',
      ]);
      const results = await search('"next quarter"');
      expect(results.map((r) => r.snippet)).to.deep.equal([
        'we will talk about the next quarter at length later today',
        'the quarter is next on the list, next to planning',
        'the quarter after',
      ]);
      // Unquoted, the scattered words rank by score alone.
      expect(await search('next quarter')).to.have.length(3);
    });

    it('matches regardless of case and accents, both ways', async () => {
      await saved(['Le CAFÉ est prêt', 'Naïve résumé reviewed']);
      expect((await search('cafe')).map((r) => r.snippet)).to.deep.equal(['Le CAFÉ est prêt']);
      expect((await search('PRET'))[0].snippet).to.equal('Le CAFÉ est prêt');
      expect((await search('naive resume'))[0].snippet).to.equal('Naïve résumé reviewed');
      expect((await search('Ëst'))[0].snippet).to.equal('Le CAFÉ est prêt');
    });

    it('answers project, meeting, title, date, path, speaker, timestamp and a snippet around the match', async () => {
      const long = `${'filler words before the match '.repeat(10)}the migration plan is approved ${'and more words after it '.repeat(10)}`;
      const m = await saved([{ speaker: 'Dana', text: long }], { project: 'acme', title: 'Infra review' });
      const [result] = await search('migration');
      expect(result).to.deep.include({
        project: 'acme',
        meetingId: m.meetingId,
        title: 'Infra review',
        date: '2024-11-21T10:00:00.000Z',
        documentPath: m.documentPath,
        speaker: 'Dana',
        timestamp: '2024-11-21T10:00:00.000Z',
      });
      expect(result.snippet).to.contain('the migration plan is approved');
      expect(result.snippet.length).to.be.below(200);
      expect(result.snippet.startsWith('…')).to.equal(true);
      expect(result.snippet.endsWith('…')).to.equal(true);
    });

    it('filters by project and honours the limit', async () => {
      await saved(['roadmap one', 'roadmap two'], { project: 'alpha' });
      await saved(['roadmap three'], { project: 'beta' });
      expect((await search('roadmap', { project: 'beta' })).map((r) => r.snippet)).to.deep.equal(['roadmap three']);
      expect(await search('roadmap', { limit: 2 })).to.have.length(2);
      expect(await search('roadmap')).to.have.length(3);
      expect(await search('roadmap', { project: 'nothing' })).to.deep.equal([]);
    });

    it('finds words only once they are in a saved document: the index follows each flush', async () => {
      const m = await openMeeting(h);
      await appendAll(h, m, ['kubernetes upgrade']);
      expect(await search('kubernetes')).to.deep.equal([]);
      await flush(h, m.meetingId);
      expect(await search('kubernetes')).to.have.length(1);
      await appendAll(h, m, ['kubernetes rollback'], 1);
      await flush(h, m.meetingId);
      expect(await search('kubernetes')).to.have.length(2);

      const unsaved = await openMeeting(h, { saveTranscript: false });
      await appendAll(h, unsaved, ['kubernetes secrets']);
      await flush(h, unsaved.meetingId);
      expect(await search('kubernetes')).to.have.length(2);
    });

    it('still finds everything after a restart', async () => {
      await saved(['observability dashboards', 'the observability budget']);
      h = await h.restart();
      expect(h.service.indexedSegments()).to.equal(2);
      expect((await search('observability budget'))[0].snippet).to.equal('the observability budget');
    });

    it('completes a partial word of four letters or more, and matches a whole word as itself', async () => {
      await saved(['budgeting season', 'the budget talk', 'a bud opens']);
      expect((await search('budg')).map((r) => r.snippet).sort()).to.deep.equal([
        'budgeting season',
        'the budget talk',
      ]);
      expect((await search('budget')).map((r) => r.snippet)).to.deep.equal(['the budget talk']);
      expect((await search('bud')).map((r) => r.snippet)).to.deep.equal(['a bud opens']);
      expect(await search('bu')).to.deep.equal([]);
    });

    it('answers no results for a query without words, and 400 for an empty or over-long one', async () => {
      await saved(['anything']);
      expect(await search('?!')).to.deep.equal([]);
      expect((await rejection(search(''))).status).to.equal(400);
      expect((await rejection(search('x'.repeat(201)))).status).to.equal(400);
    });
  });
}
