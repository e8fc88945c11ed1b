/** Reads the live view's server-sent events over HTTP, as a browser's EventSource would parse them. */
import { expect } from 'chai';

export interface SseMessage {
  /** The event's sequence; null for the stream's own messages (replayed, done, warnings). */
  id: number | null;
  event: string;
  data: { sequence: number; type: string; payload: Record<string, unknown> } & Record<string, unknown>;
}

export interface SseRead {
  /** Meeting events only (the messages with an id). */
  events: SseMessage[];
  /** Every message in order, the stream's own included. */
  messages: SseMessage[];
  /** The server closed the stream. */
  ended: boolean;
}

/** Reads the stream until `until` is true of the events so far, or the stream ends (10 s at most). */
export async function readEvents(
  baseUrl: string,
  path: string,
  cookie: string,
  until: (events: SseMessage[]) => boolean,
  lastEventId?: number,
): Promise<SseRead> {
  const controller = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream' };
  if (cookie) headers.Cookie = cookie;
  if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(`${baseUrl}${path}`, { headers, signal: controller.signal });
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.equal('text/event-stream; charset=utf-8');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const messages: SseMessage[] = [];
  const events = () => messages.filter((m) => m.id !== null);
  let buffer = '';
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { events: events(), messages, ended: true };
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const fields = Object.fromEntries(
          block
            .split('\n')
            .filter((line) => !line.startsWith(':') && line.includes(': '))
            .map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (fields.event)
          messages.push({
            id: fields.id ? Number(fields.id) : null,
            event: fields.event,
            data: JSON.parse(fields.data),
          });
      }
      if (until(events())) return { events: events(), messages, ended: false };
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}
