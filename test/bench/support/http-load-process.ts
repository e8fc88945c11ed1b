/**
 * A load generator in a process of its own, so that the process it loads (the bench's, hosting the
 * stack) can count its own CPU time as the server's alone. Driven over IPC: each `run` message names
 * one request (its body's `id` replaced by a fresh number each time, as a client numbers its
 * requests), how many to send and how many in flight; the answer is the latency summary, or the
 * first answer that was not a 200 without `isError`.
 */
import http from 'node:http';
import { runWindowed, type LatencySummary } from '../stats.js';

export interface LoadRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  /** A JSON-RPC body; its `id` is set per request. */
  body?: Record<string, unknown>;
}

export interface LoadRun {
  request: LoadRequest;
  total: number;
  window: number;
}

export type LoadResult = { summary: LatencySummary } | { error: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
let nextId = 1;

function send({ method, url, headers, body }: LoadRequest): Promise<void> {
  const text = body && JSON.stringify({ ...body, id: nextId++ });
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200 || answer.includes('"isError":true'))
          reject(new Error(`${method} ${url}: ${res.statusCode} ${answer.slice(0, 200)}`));
        else resolve();
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

process.on('message', (run: LoadRun) => {
  runWindowed(run.total, run.window, () => send(run.request)).then(
    (summary) => process.send!({ summary } satisfies LoadResult),
    (err: Error) => process.send!({ error: err.message } satisfies LoadResult),
  );
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
