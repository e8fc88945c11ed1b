/**
 * A test's child process that reports facts as JSON lines on stdout: session-process.ts, or any
 * TypeScript entry point whose JSON log lines are its facts (the e2e suite's deployed worker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const SCRIPT = path.join(import.meta.dirname, 'session-process.ts');
const children = new Set<ChildProcess>();
// A failed test must not leave processes behind on the shared machine.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

export interface Child {
  pid: number;
  facts: Array<Record<string, unknown>>;
  /** `what` names the awaited fact in the error when it does not come. */
  waitFor(
    match: (fact: Record<string, unknown>) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<Record<string, unknown>>;
  /** Resolves once the process has exited, however it ended. */
  exited: Promise<void>;
  kill(): Promise<void>;
}

export function spawnSession(mode: 'stack' | 'worker', env: Record<string, string>): Child {
  return spawnChild(SCRIPT, { args: [mode], env: { LOG_LEVEL: 'silent', PORT: '0', ...env } });
}

export interface ChildOptions {
  args?: string[];
  /** Added to this process's environment. */
  env?: Record<string, string>;
  cwd?: string;
}

/** `node --import tsx <script>`, its JSON stdout lines collected as facts. */
export function spawnChild(script: string, { args = [], env = {}, cwd }: ChildOptions = {}): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  const facts: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  let stderr = '';
  let buffer = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      try {
        facts.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        continue; // not one of ours
      }
      for (const l of [...listeners]) l();
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) =>
    proc.once('exit', () => {
      children.delete(proc);
      for (const l of [...listeners]) l();
      resolve();
    }),
  );
  return {
    pid: proc.pid!,
    facts,
    exited,
    waitFor(match, timeoutMs = 20_000, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = facts.find(match);
          if (found) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (proc.exitCode !== null || proc.signalCode !== null) {
            listeners.delete(check);
            clearTimeout(timer);
            const before = what ? ` before ${what}` : '';
            reject(new Error(`child exited (${proc.exitCode ?? proc.signalCode})${before}: ${stderr}`));
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`child did not report${what ? ` ${what}` : ''} in ${timeoutMs} ms: ${stderr}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    async kill() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
