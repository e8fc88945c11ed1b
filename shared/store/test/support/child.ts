/**
 * Starts a test script in its own Node process (through tsx) and reads its lines: store-child.ts
 * here, and other packages' children through `@notetaker/store/test-support`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const storeChild = fileURLToPath(new URL('./store-child.ts', import.meta.url));

export interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching, rejects if the process exits before. */
  waitFor(match: (line: string) => boolean): Promise<string>;
  exited: Promise<number | null>;
}

/** `script`: an absolute path (store-child.ts when left out); `env` is added to this process's. */
export function startChild(args: string[], script = storeChild, env: NodeJS.ProcessEnv = {}): Child {
  // cwd: the package folder, from which `--import tsx` resolves (the root test run starts elsewhere).
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: packageDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffered = '';
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
  return {
    process: proc,
    lines,
    exited,
    waitFor: (match) =>
      new Promise((resolve, reject) => {
        const seen = lines.find(match);
        if (seen !== undefined) return resolve(seen);
        waiters.push({ match, resolve });
        void exited.then((code) =>
          reject(new Error(`child exited (${code}) before the expected line; got: ${lines.slice(-5).join(' | ')}`)),
        );
      }),
  };
}

/** The pid of a process that has already exited (for a stale LOCK). */
export async function deadPid(): Promise<number> {
  const proc = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => proc.on('close', resolve));
  return proc.pid!;
}

/** Field `index` of /proc/<pid>/stat counted after the command name (0: state, 19: start time). */
export function procField(pid: number, index: number): string | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[index];
}
