/** Starts a test script in its own Node process (through tsx) and reads its lines. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));

export interface Child {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first line matching; rejects if the process exits before. */
  waitFor(match: (line: string) => boolean): Promise<string>;
  exited: Promise<number | null>;
}

export function startChild(script: string, args: string[], env: NodeJS.ProcessEnv): Child {
  // cwd: the package folder, from which `--import tsx` resolves (the root test run starts elsewhere).
  const proc = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args], {
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
