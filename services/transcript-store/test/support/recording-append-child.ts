/**
 * Appends to one recording until it is killed, printing `acked <size>` as each append is
 * answered: the contract's SIGKILL test kills it and checks that every byte acknowledged is
 * stored. Arguments: the key and DATA_DIR; the storage comes from the environment, as in the
 * service (recordingStorageFromEnv).
 */
import { recordingStorageFromEnv } from '../../src/recordings/index.js';
import { recordingBytes } from './recording-bytes.js';

const [key, dataDir] = process.argv.slice(2);
const storage = recordingStorageFromEnv({ env: process.env, dataDir, fsync: process.env.TRANSCRIPT_FSYNC !== 'false' });
let size = (await storage.size(key)) ?? 0;
for (let i = 0; ; i++) {
  const length = 4096 + ((i * 7919) % 4097);
  ({ size } = await storage.append(key, size, recordingBytes(size, length)));
  // A write to a pipe is synchronous on Linux: the line is out before the next append starts.
  process.stdout.write(`acked ${size}\n`);
}
