/**
 * The recording storage contract on files (a temp folder per test), plus what only files have:
 * a full disk.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { FilesystemRecordingStorage, INCOMPLETE_DIR } from '../src/recordings/filesystem.js';
import {
  recordingStorageContract,
  type RecordingPlace,
  type RecordingStorageFactory,
} from './recording-storage.contract.js';
import { rejection } from '../../../test/support/rejection.js';
import { readAll, recordingBytes } from './support/recording-bytes.js';

function tempPlace(): RecordingPlace & { root: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'recording-storage-'));
  const root = path.join(dataDir, 'recordings');
  return {
    root,
    // Without fsync, as the other suites run the service: what survives a SIGKILL is in the page
    // cache either way, and a thousand fdatasyncs would make the suite slow on a busy disk.
    open: () => new FilesystemRecordingStorage({ root, fsync: false }),
    env: () => ({ env: { RECORDINGS_S3_URL: '', TRANSCRIPT_FSYNC: 'false' }, dataDir }),
    traces: async () => {
      if (!fs.existsSync(root)) return [];
      const entries = fs.readdirSync(root, { recursive: true, withFileTypes: true });
      return entries.filter((e) => !e.isDirectory()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
    },
    dispose: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

const filesystem: RecordingStorageFactory = { label: 'files', place: async () => tempPlace() };

describe('recording storage (files)', () => {
  recordingStorageContract(filesystem);

  describe('on files only', () => {
    let place: ReturnType<typeof tempPlace>;
    beforeEach(() => {
      place = tempPlace();
    });
    afterEach(() => place.dispose());

    it('turns a full disk into a storage_full error that says so', async () => {
      // /dev/full answers every write with ENOSPC: a recording file that is a link to it is a full disk.
      fs.mkdirSync(path.join(place.root, INCOMPLETE_DIR), { recursive: true });
      fs.symlinkSync('/dev/full', path.join(place.root, INCOMPLETE_DIR, 'full.ogg'));
      const storage = place.open();
      const err = await rejection(storage.append('full.ogg', 0, recordingBytes(0, 8192)));
      expect(err.code).to.equal('storage_full');
      expect(err.status).to.equal(507);
      expect(err.message).to.match(/full/).and.include(place.root);
    });

    it('keeps a recording being appended apart from complete ones, which are whole files at the top', async () => {
      const storage = place.open();
      await storage.append('m.ogg', 0, recordingBytes(0, 100));
      expect(fs.existsSync(path.join(place.root, 'm.ogg'))).to.equal(false);
      await storage.complete('m.ogg');
      expect(fs.readFileSync(path.join(place.root, 'm.ogg')).equals(recordingBytes(0, 100))).to.equal(true);
      expect(fs.readdirSync(path.join(place.root, INCOMPLETE_DIR))).to.deep.equal([]);
      await storage.close();
    });

    it('works with fsync (TRANSCRIPT_FSYNC=true, the default)', async () => {
      const storage = new FilesystemRecordingStorage({ root: place.root });
      await storage.append('m.ogg', 0, recordingBytes(0, 100));
      await storage.append('m.ogg', 100, recordingBytes(100, 50));
      expect(await storage.complete('m.ogg')).to.deep.equal({ size: 150 });
      expect((await readAll(await storage.read('m.ogg', 0, 149))).equals(recordingBytes(0, 150))).to.equal(true);
      await storage.close();
    });
  });
});
