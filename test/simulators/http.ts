/** Small request/response helpers for the simulator's handlers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

export function sendHtml(res: ServerResponse, html: string): void {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

/** Sends the browser on to `location` (a platform's sign-in page); never cached. */
export function redirect(res: ServerResponse, location: URL): void {
  res.writeHead(302, { location: location.toString(), 'cache-control': 'no-store' }).end();
}
