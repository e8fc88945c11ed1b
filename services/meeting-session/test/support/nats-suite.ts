/**
 * A suite on a real nats-server: the server (NATS_URL, or one started here; see natsForSuite, which
 * skips the suite when there is neither) is found by a `before` hook, and whatever the suite starts
 * on it is handed to `release`, undone by an `after` hook in reverse order before the server stops
 * and the suite's temporary folders are removed. Shared by the NATS specs of several services.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { natsForSuite, type NatsServerHandle } from '@notetaker/bus/test-support';

export interface NatsSuite {
  /** The server's URL, once the suite's `before` hooks run. */
  readonly url: string;
  /** Undone after the suite's tests, the last one handed in first, all before the server stops. */
  release(undo: () => unknown): void;
  /** A new temporary folder, removed after the suite. */
  tempDir(prefix: string): string;
}

/** Call in a `describe` body, before the suite's own hooks (they run after its `before`). */
export function natsServerForSuite(): NatsSuite {
  let server: NatsServerHandle | null = null;
  const undo: Array<() => unknown> = [];
  const dirs: string[] = [];
  const suite = {
    url: '',
    release: (fn: () => unknown) => void undo.push(fn),
    tempDir(prefix: string) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
  };
  before(async function () {
    const nats = await natsForSuite(this);
    server = nats.server;
    suite.url = nats.url;
  });
  after(async () => {
    for (let fn = undo.pop(); fn; fn = undo.pop()) await fn();
    await server?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  return suite;
}
