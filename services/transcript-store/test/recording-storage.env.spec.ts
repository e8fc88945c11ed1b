/** Which recording storage the environment asks for, and what it refuses (src/recordings/index.ts). */
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '@notetaker/config';
import { FilesystemRecordingStorage, S3RecordingStorage, recordingStorageFromEnv } from '../src/recordings/index.js';

const dataDir = path.resolve('/tmp/recording-env-test');
const s3 = {
  RECORDINGS_S3_URL: 'http://127.0.0.1:9000',
  RECORDINGS_S3_BUCKET: 'meetings',
  RECORDINGS_S3_ACCESS_KEY_ID: 'minio',
  RECORDINGS_S3_SECRET_ACCESS_KEY: 'very-secret-value',
};

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    recordingStorageFromEnv({ env, dataDir });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('recording storage from the environment', () => {
  it('keeps files under DATA_DIR/recordings by default', async () => {
    const storage = recordingStorageFromEnv({ env: { RECORDINGS_S3_URL: '' }, dataDir });
    expect(storage).to.be.instanceOf(FilesystemRecordingStorage);
    expect(storage.description).to.include(path.join(dataDir, 'recordings'));
    await storage.close();
  });

  it('uses the bucket when RECORDINGS_S3_URL is set, and names no secret in its description', async () => {
    const storage = recordingStorageFromEnv({ env: { ...s3, RECORDINGS_S3_PREFIX: 'rec' }, dataDir });
    expect(storage).to.be.instanceOf(S3RecordingStorage);
    expect(storage.description).to.equal('S3 bucket "meetings" at http://127.0.0.1:9000, under rec/');
    expect(storage.description).not.to.include('very-secret-value');
    await storage.close();
  });

  it('names every variable that is missing or wrong, and never echoes a secret', () => {
    expect(problemsOf({ RECORDINGS_S3_URL: 'http://127.0.0.1:9000' })).to.deep.equal([
      'RECORDINGS_S3_BUCKET: is required with RECORDINGS_S3_URL',
    ]);
    expect(problemsOf({ ...s3, RECORDINGS_S3_SECRET_ACCESS_KEY: '' })[0]).to.match(
      /^RECORDINGS_S3_SECRET_ACCESS_KEY: .*go together/,
    );
    expect(problemsOf({ ...s3, RECORDINGS_S3_URL: 'ftp://example.com' })[0]).to.match(/^RECORDINGS_S3_URL: /);
    const withUser = problemsOf({ ...s3, RECORDINGS_S3_URL: 'http://minio:very-secret-value@127.0.0.1:9000' });
    expect(withUser[0]).to.match(/^RECORDINGS_S3_URL: must not hold credentials/);
    expect(withUser.join(' ')).not.to.include('very-secret-value');
    expect(problemsOf({ ...s3, RECORDINGS_S3_FORCE_PATH_STYLE: 'maybe' })[0]).to.match(
      /^RECORDINGS_S3_FORCE_PATH_STYLE: /,
    );
  });
});
