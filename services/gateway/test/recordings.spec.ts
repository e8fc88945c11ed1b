/**
 * Meetings' audio recordings through the gateway, on the real stack (the scripted meeting platform
 * the only stand-in; transcript-store keeps the files under DATA_DIR): `recording` passed on at
 * start, the download with its headers and HTTP ranges, the live file served as it is so far,
 * ownership (another key's meeting is 404 on every route), DELETE (409 while live, then gone),
 * and the MCP tools get_recording and delete_recording answering as REST does. A test stands in
 * for the bot's audio by appending bytes to transcript-store over the bus, as the worker does.
 */
import crypto from 'node:crypto';
import { expect } from 'chai';
import { call, createMemoryBus, MemoryBroker, answer, type Bus } from '@notetaker/bus';
import { RECORDING_MAX_CHUNK_BYTES, routes } from '@notetaker/contracts';
import { recordingStream, rangeOf, RECORDING_PIECE_BYTES } from '../src/http/recording-download.js';
import { loadPublicUrl } from '../src/http/public-url.js';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { eventually } from '../../../test/support/wait.js';
import { connectMcp, mcpPerSuite } from './mcp/clients.js';
import { meetUrl } from './support/meeting-with-receiver.js';
import { stackPerSuite } from './support/stack-per-suite.js';

const CALLBACK = 'http://127.0.0.1:9/hook';
/** A file over two bus reads long (256 KiB each), starting as an Ogg file does. */
const FILE = Buffer.concat([Buffer.from('OggS'), crypto.randomBytes(700_000 - 4)]);

/** Appends `bytes` to a meeting's recording as the worker does: in pieces, each at the file's end. */
async function record(bus: Bus, meetingId: string, bytes: Buffer, startedAt = new Date().toISOString()) {
  const before = (await call(bus, routes.recordings.get, { meetingId }))?.bytes ?? 0;
  const piece = 384 * 1024;
  for (let at = 0; at < bytes.length; at += piece) {
    await call(bus, routes.recordings.append, {
      meetingId,
      startedAt,
      offset: before + at,
      data: bytes.subarray(at, at + piece).toString('base64'),
      durationMs: 60_000,
    });
  }
}

describe('recordings: download, ranges, delete, MCP', function () {
  this.timeout(60_000);
  const driver = scriptedDriverFactory();
  const t = stackPerSuite({ env: { FLUSH_INTERVAL_MS: '200' }, options: { driverFactory: driver } });
  let other: string;
  before(async () => {
    other = (await t.createToken()).apiKey;
  });

  async function start(body: Record<string, unknown> = {}, apiKey = t.apiKey): Promise<string> {
    const res = await t.api('/meetings/start', {
      method: 'POST',
      apiKey,
      json: { url: meetUrl(), callbackUrl: CALLBACK, saveTranscript: false, ...body },
    });
    expect(res.status, await res.clone().text()).to.equal(201);
    return ((await res.json()) as { meetingId: string }).meetingId;
  }
  const transcript = async (meetingId: string) =>
    (await (await t.api(`/meetings/${meetingId}/transcript`, { apiKey: t.apiKey })).json()) as {
      status: string;
      recording: Record<string, unknown> | null;
    };
  async function live(meetingId: string) {
    await driver.meeting(meetingId);
    await eventually(async () => (await transcript(meetingId)).status === 'live', 'live');
  }
  async function end(meetingId: string) {
    const res = await t.api('/meetings/stop', { method: 'POST', apiKey: t.apiKey, json: { meetingId } });
    expect(res.status).to.equal(200);
    await eventually(async () => (await transcript(meetingId)).status === 'ended', 'ended');
  }
  /** A meeting of the suite's key, ended, with FILE as its saved recording. */
  async function recordedMeeting(): Promise<string> {
    const meetingId = await start();
    await live(meetingId);
    await record(t.stack.bus, meetingId, FILE);
    await end(meetingId);
    await call(t.stack.bus, routes.recordings.finish, { meetingId });
    return meetingId;
  }
  const download = (meetingId: string, headers: Record<string, string> = {}, apiKey = t.apiKey, method = 'GET') =>
    t.api(`/meetings/${meetingId}/recording`, { method, apiKey, headers });
  const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

  describe('over REST', () => {
    let meetingId: string;
    before(async () => {
      meetingId = await recordedMeeting();
    });

    it('passes `recording` on at start: an audio meeting is recorded from admission, served while live, saved at the end', async () => {
      const recorded = await start({ recording: 'audio' });
      await live(recorded);
      // The bot wrote the Ogg headers when it was admitted: a live file, served as it is now.
      const first = await eventually(async () => {
        const res = await download(recorded);
        return res.status === 200 && res;
      }, 'the headers stored');
      expect(first.headers.get('x-recording-status')).to.equal('recording');
      const headers = await bytesOf(first);
      expect(headers.subarray(0, 4).toString('latin1')).to.equal('OggS');
      expect(Number(first.headers.get('content-length'))).to.equal(headers.length);
      expect((await transcript(recorded)).recording).to.include({ status: 'recording', bytes: headers.length });

      await end(recorded);
      const saved = await eventually(async () => {
        const info = (await transcript(recorded)).recording;
        return info?.status === 'saved' && info;
      }, 'saved');
      expect(saved).to.include({ format: 'audio/ogg', url: `/api/v1/meetings/${recorded}/recording` });
      const whole = await download(recorded);
      expect(whole.headers.get('x-recording-status')).to.equal('saved');
      const file = await bytesOf(whole);
      expect(file.length).to.equal(saved.bytes);
      expect(file.subarray(0, headers.length).equals(headers)).to.equal(true);

      // Not asked for (the default here is none): no recording at all.
      const silent = await start({ recording: 'none' });
      await live(silent);
      expect((await transcript(silent)).recording).to.equal(null);
      const none = await download(silent);
      expect(none.status).to.equal(404);
      expect(await none.json()).to.deep.equal({ error: 'No recording for this meeting' });
      await end(silent);

      const bad = await t.api('/meetings/start', {
        method: 'POST',
        apiKey: t.apiKey,
        json: { url: meetUrl(), callbackUrl: CALLBACK, recording: 'video' },
      });
      expect(bad.status).to.equal(400);
      expect(await bad.json()).to.deep.equal({ error: 'recording must be one of audio, none' });
    });

    it("serves a live meeting's file as it is so far, and what came since to a later request", async () => {
      const running = await start();
      await live(running);
      const first = Buffer.concat([Buffer.from('OggS'), crypto.randomBytes(400_000)]);
      await record(t.stack.bus, running, first);
      const partial = await download(running);
      expect(partial.status).to.equal(200);
      expect(partial.headers.get('x-recording-status')).to.equal('recording');
      expect(partial.headers.get('content-length')).to.equal(String(first.length));
      expect((await bytesOf(partial)).equals(first)).to.equal(true);

      const more = crypto.randomBytes(1000);
      await record(t.stack.bus, running, more);
      expect((await bytesOf(await download(running))).equals(Buffer.concat([first, more]))).to.equal(true);
      const since = await download(running, { Range: `bytes=${first.length}-` });
      expect(since.status).to.equal(206);
      expect(since.headers.get('content-range')).to.equal(
        `bytes ${first.length}-${first.length + more.length - 1}/${first.length + more.length}`,
      );
      expect((await bytesOf(since)).equals(more)).to.equal(true);
      await end(running);
    });

    it('serves the owner the exact bytes with the download headers; HEAD the same headers without a body', async () => {
      const res = await download(meetingId);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/ogg');
      expect(res.headers.get('content-length')).to.equal(String(FILE.length));
      expect(res.headers.get('accept-ranges')).to.equal('bytes');
      expect(res.headers.get('content-disposition')).to.equal(`inline; filename="${meetingId}.ogg"`);
      expect(res.headers.get('cache-control')).to.equal('private, no-store');
      expect(res.headers.get('x-recording-status')).to.equal('saved');
      expect(res.headers.get('content-range')).to.equal(null);
      expect((await bytesOf(res)).equals(FILE)).to.equal(true);

      const head = await download(meetingId, {}, t.apiKey, 'HEAD');
      expect(head.status).to.equal(200);
      expect(head.headers.get('content-length')).to.equal(String(FILE.length));
      expect(head.headers.get('content-type')).to.equal('audio/ogg');
      expect((await bytesOf(head)).length).to.equal(0);
      const headRange = await download(meetingId, { Range: 'bytes=10-19' }, t.apiKey, 'HEAD');
      expect(headRange.status).to.equal(206);
      expect(headRange.headers.get('content-range')).to.equal(`bytes 10-19/${FILE.length}`);
    });

    it('lets a client go away mid-file (a player seeking) without an error logged, and serves the next request', async () => {
      const abort = new AbortController();
      const res = await t.api(`/meetings/${meetingId}/recording`, {
        apiKey: t.apiKey,
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      expect((await reader.read()).done).to.equal(false);
      abort.abort();
      await reader.read().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(t.warnings().filter((line) => String(line.msg).includes('recording'))).to.deep.equal([]);
      expect((await bytesOf(await download(meetingId))).equals(FILE)).to.equal(true);
    });

    it('answers one byte range with 206 and exactly those bytes', async () => {
      const size = FILE.length;
      const cases: Array<[string, number, number]> = [
        ['bytes=0-0', 0, 0], // the first byte
        ['bytes=300000-300999', 300_000, 300_999], // the middle
        [`bytes=${size - 1}-${size - 1}`, size - 1, size - 1], // the last byte
        ['bytes=-1000', size - 1000, size - 1], // a suffix
        [`bytes=-${size + 5}`, 0, size - 1], // a suffix longer than the file: all of it
        ['bytes=100000-', 100_000, size - 1], // open-ended, over several bus reads
        [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1], // past the end: cut there
        ['bytes=262140-262150', 262_140, 262_150], // across two reads
      ];
      for (const [range, first, last] of cases) {
        const res = await download(meetingId, { Range: range });
        expect(res.status, range).to.equal(206);
        expect(res.headers.get('content-range'), range).to.equal(`bytes ${first}-${last}/${size}`);
        expect(res.headers.get('content-length'), range).to.equal(String(last - first + 1));
        expect((await bytesOf(res)).equals(FILE.subarray(first, last + 1)), range).to.equal(true);
      }
    });

    it('answers an unsatisfiable range with 416 and the size; what it may ignore with the whole file', async () => {
      for (const range of [`bytes=${FILE.length}-`, `bytes=${FILE.length + 10}-${FILE.length + 20}`, 'bytes=-0']) {
        const res = await download(meetingId, { Range: range });
        expect(res.status, range).to.equal(416);
        expect(res.headers.get('content-range'), range).to.equal(`bytes */${FILE.length}`);
        expect(await res.json()).to.deep.equal({
          error: `Range not satisfiable: the recording holds ${FILE.length} bytes`,
        });
      }
      const ignored: Array<Record<string, string>> = [
        { Range: 'bytes=0-9, 20-29' }, // several ranges: the whole file
        { Range: 'bytes=abc' },
        { Range: 'bytes=50-10' },
        { Range: 'items=0-9' },
        { Range: 'bytes=0-9', 'If-Range': '"some-etag"' }, // we send no validator it could match
      ];
      for (const headers of ignored) {
        const res = await download(meetingId, headers);
        expect(res.status, JSON.stringify(headers)).to.equal(200);
        expect(res.headers.get('content-range')).to.equal(null);
        expect((await bytesOf(res)).length).to.equal(FILE.length);
      }
    });

    it("another key's meeting, an unknown one and a meeting without a recording are 404 on every route", async () => {
      for (const method of ['GET', 'HEAD', 'DELETE']) {
        const res = await download(meetingId, {}, other, method);
        expect(res.status, method).to.equal(404);
        if (method !== 'HEAD') expect(await res.json(), method).to.deep.equal({ error: 'Not found' });
      }
      const info = await t.api(`/meetings/${meetingId}/recording/info`, { apiKey: other });
      expect(info.status).to.equal(404);
      expect(await info.json()).to.deep.equal({ error: 'Not found' });
      expect((await download(meetingId, { Range: 'bytes=0-0' }, other)).status).to.equal(404);
      expect((await download('meeting_0000000000000_unknownxyz')).status).to.equal(404);
      expect((await download('not-a-meeting-id')).status).to.equal(404);
      expect((await download(meetingId, {}, 'sk_not_a_key')).status).to.equal(401);
      // Still the owner's, untouched.
      expect((await bytesOf(await download(meetingId))).equals(FILE)).to.equal(true);

      const silent = await start();
      await live(silent);
      for (const res of [
        await download(silent),
        await t.api(`/meetings/${silent}/recording/info`, { apiKey: t.apiKey }),
      ]) {
        expect(res.status).to.equal(404);
        expect(await res.json()).to.deep.equal({ error: 'No recording for this meeting' });
      }
      await end(silent);
      const del = await download(silent, {}, t.apiKey, 'DELETE');
      expect(del.status).to.equal(404);
      expect(await del.json()).to.deep.equal({ error: 'No recording for this meeting' });
    });

    it('describes the recording with an absolute download URL on the address the request came to', async () => {
      const res = await t.api(`/meetings/${meetingId}/recording/info`, { apiKey: t.apiKey });
      expect(res.status).to.equal(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).to.deep.include({
        meetingId,
        status: 'saved',
        format: 'audio/ogg',
        bytes: FILE.length,
        durationMs: 60_000,
        url: `/api/v1/meetings/${meetingId}/recording`,
        downloadUrl: `${t.baseUrl}/api/v1/meetings/${meetingId}/recording`,
      });
      expect(body.startedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      // Behind a TLS-terminating proxy: https.
      const proxied = await t.api(`/meetings/${meetingId}/recording/info`, {
        apiKey: t.apiKey,
        headers: { 'X-Forwarded-Proto': 'https' },
      });
      expect(((await proxied.json()) as { downloadUrl: string }).downloadUrl).to.equal(
        `${t.baseUrl.replace(/^http:/, 'https:')}/api/v1/meetings/${meetingId}/recording`,
      );
    });

    it('deletes a recording once the meeting has ended (409 while live); then it is gone everywhere', async () => {
      const running = await start();
      await live(running);
      await record(t.stack.bus, running, Buffer.from('OggS live'));
      const refused = await download(running, {}, t.apiKey, 'DELETE');
      expect(refused.status).to.equal(409);
      expect(await refused.json()).to.deep.equal({
        error: 'The meeting is still being recorded: stop it first, then delete its recording',
      });
      expect((await download(running)).status).to.equal(200);
      await end(running);

      const gone = await recordedMeeting();
      expect((await download(gone, {}, other, 'DELETE')).status).to.equal(404);
      const deleted = await download(gone, {}, t.apiKey, 'DELETE');
      expect(deleted.status).to.equal(200);
      expect(await deleted.json()).to.deep.equal({ meetingId: gone, deleted: true });
      const after = await download(gone);
      expect(after.status).to.equal(404);
      expect(await after.json()).to.deep.equal({ error: 'No recording for this meeting' });
      expect((await download(gone, { Range: 'bytes=0-0' })).status).to.equal(404);
      expect((await transcript(gone)).recording).to.equal(null);
      expect(await call(t.stack.bus, routes.recordings.get, { meetingId: gone })).to.equal(null);
      expect((await download(gone, {}, t.apiKey, 'DELETE')).status).to.equal(404);
    });
  });

  describe('over MCP', () => {
    let meetingId: string;
    before(async () => {
      meetingId = await recordedMeeting();
    });
    const mcp = mcpPerSuite(() => connectMcp(t.baseUrl, 'modern', { apiKey: t.apiKey }));
    const foreign = mcpPerSuite(() => connectMcp(t.baseUrl, 'legacy', { apiKey: other }));

    it('get_recording answers the REST body: the metadata and an absolute URL that downloads the file', async () => {
      const result = await mcp.call('get_recording', { meetingId });
      expect(result.isError).to.not.equal(true);
      const rest = await (await t.api(`/meetings/${meetingId}/recording/info`, { apiKey: t.apiKey })).json();
      expect(result.structuredContent).to.deep.equal(rest);
      const { downloadUrl } = result.structuredContent as { downloadUrl: string };
      expect(downloadUrl).to.equal(`${t.baseUrl}/api/v1/meetings/${meetingId}/recording`);
      expect(result.content[0].text).to.contain(downloadUrl).and.contain('saved');
      const file = await fetch(downloadUrl, { headers: { 'X-API-Key': t.apiKey } });
      expect((await bytesOf(file)).equals(FILE)).to.equal(true);
    });

    it("another key's call is refused as not found, as on REST; delete_recording deletes the owner's", async () => {
      for (const tool of ['get_recording', 'delete_recording']) {
        const refused = await foreign.call(tool, { meetingId });
        expect(refused.isError, tool).to.equal(true);
        expect(refused.content.map((c) => c.text).join('')).to.equal('Not found');
      }
      const deleted = await mcp.call('delete_recording', { meetingId });
      expect(deleted.structuredContent).to.deep.equal({ meetingId, deleted: true });
      const again = await mcp.call('get_recording', { meetingId });
      expect(again.isError).to.equal(true);
      expect(again.content[0].text).to.equal('No recording for this meeting');
    });
  });
});

describe('recordings: ranges and the streamed read, alone', () => {
  it('reads a Range header as RFC 9110 asks, serving a single range only', () => {
    expect(rangeOf(undefined, 100)).to.deep.equal({ kind: 'whole' });
    expect(rangeOf('bytes=0-', 100)).to.deep.equal({ kind: 'part', start: 0, end: 99 });
    expect(rangeOf('BYTES = 5 - 9', 100)).to.deep.equal({ kind: 'part', start: 5, end: 9 });
    expect(rangeOf('bytes=-1', 100)).to.deep.equal({ kind: 'part', start: 99, end: 99 });
    expect(rangeOf('bytes=99999999999999999999-', 100)).to.deep.equal({ kind: 'unsatisfiable' });
    expect(rangeOf('bytes=1-2,', 100)).to.deep.equal({ kind: 'part', start: 1, end: 2 });
    expect(rangeOf('bytes=1-2,5-6', 100)).to.deep.equal({ kind: 'whole' });
    expect(rangeOf('bytes=-', 100)).to.deep.equal({ kind: 'whole' });
    expect(rangeOf('bytes=1-2', 100, 'Wed, 21 Oct 2015 07:28:00 GMT')).to.deep.equal({ kind: 'whole' });
  });

  it('reads the file a piece of at most 256 KiB at a time, only as fast as it is consumed', async () => {
    const bus = await createMemoryBus({ broker: new MemoryBroker() });
    const size = 5 * 1024 * 1024;
    const reads: Array<[number, number]> = [];
    const sub = answer(bus, routes.recordings.read, async ({ start, end }) => {
      reads.push([start, end]);
      return { data: Buffer.alloc(end - start + 1, start % 251).toString('base64') };
    });
    try {
      expect(RECORDING_PIECE_BYTES)
        .to.equal(256 * 1024)
        .and.be.below(RECORDING_MAX_CHUNK_BYTES);
      const stream = recordingStream(bus, 'meeting_1', 0, size - 1);
      const firstPiece = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
      stream.pause();
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Paused after one piece: at most the next one or two were read ahead, not the 5 MiB.
      expect(firstPiece.length).to.equal(RECORDING_PIECE_BYTES);
      expect(reads.length).to.be.at.most(3);
      let total = firstPiece.length;
      stream.resume();
      for await (const chunk of stream) total += (chunk as Buffer).length;
      expect(total).to.equal(size);
      expect(reads.every(([start, end]) => end - start + 1 <= RECORDING_PIECE_BYTES)).to.equal(true);
      expect(reads.map(([start]) => start)).to.deep.equal(
        Array.from({ length: size / RECORDING_PIECE_BYTES }, (_, i) => i * RECORDING_PIECE_BYTES),
      );
    } finally {
      await sub.unsubscribe();
      await bus.close();
    }
  });

  it('ends the stream with an error when the file went away mid-way', async () => {
    const bus = await createMemoryBus({ broker: new MemoryBroker() });
    let served = 0;
    const sub = answer(bus, routes.recordings.read, async ({ start, end }) => {
      if (served++ > 0) return { data: '' }; // deleted after the first piece
      return { data: Buffer.alloc(end - start + 1).toString('base64') };
    });
    try {
      const stream = recordingStream(bus, 'meeting_1', 0, 3 * RECORDING_PIECE_BYTES - 1);
      let error: Error | null = null;
      try {
        for await (const _chunk of stream) void _chunk;
      } catch (err) {
        error = err as Error;
      }
      expect(error?.message).to.equal('No recording for this meeting');
    } finally {
      await sub.unsubscribe();
      await bus.close();
    }
  });

  it('takes PUBLIC_URL as the base of absolute links, without its trailing slash', () => {
    expect(loadPublicUrl({})).to.equal(null);
    expect(loadPublicUrl({ PUBLIC_URL: '' })).to.equal(null);
    expect(loadPublicUrl({ PUBLIC_URL: 'https://notes.example.com/' })).to.equal('https://notes.example.com');
    expect(loadPublicUrl({ PUBLIC_URL: 'https://example.com/notes' })).to.equal('https://example.com/notes');
    expect(() => loadPublicUrl({ PUBLIC_URL: 'ftp://example.com' })).to.throw(/PUBLIC_URL: must be an http\(s\) URL/);
    expect(() => loadPublicUrl({ PUBLIC_URL: 'notes.example.com' })).to.throw(/PUBLIC_URL/);
  });
});
