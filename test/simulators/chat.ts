/**
 * The simulated meetings' chat (issue #51): what people write (scripted by a test), what the
 * bots post from their pages, in the order the meeting received them. Bot pages follow it over an
 * event stream of their own and draw it as their platform's panel does (pages/chat-panel.js).
 *
 *   GET  /_sim/api/chat-events?guest=<id>   server-sent events: the whole chat on every change
 *   POST /_sim/api/chat {guest, text}       a bot page sends a message
 *   POST /_sim/control/meetings/:id/chat {sender, text}  -> {id}   someone writes in the chat
 *   POST /_sim/control/meetings/:id/chat {allowed}       the host turns the chat off (false) or on
 *   GET  /_sim/control/meetings/:id/chat                  -> {messages}
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJson, sendJson } from './http.js';
import type { SimMeeting } from './meeting.js';
import type { MeetingRegistry } from './registry.js';

export interface SimChatMessage {
  id: string;
  sender: string;
  text: string;
  /** When the meeting received it (ISO 8601). */
  at: string;
  /** The bot page that sent it (its guest id), or null for a person. */
  fromGuest: string | null;
}

type ChatSink = (messages: SimChatMessage[]) => void;

export class SimChat {
  readonly messages: SimChatMessage[] = [];
  /** The host lets people write in the chat (false: the panel says so and has no compose box). */
  private allowed = true;
  private readonly sinks = new Set<ChatSink>();
  private readonly waiters = new Set<() => void>();

  /** Someone in the meeting writes `text`. */
  post(sender: string, text: string, fromGuest: string | null = null): SimChatMessage {
    const message = {
      id: `${Date.now().toString(36)}${this.messages.length.toString(36).padStart(3, '0')}`,
      sender,
      text,
      at: new Date().toISOString(),
      fromGuest,
    };
    this.messages.push(message);
    for (const sink of this.sinks) sink(this.copy());
    for (const wake of this.waiters) wake();
    return message;
  }

  /** The host turns the chat off for participants (false), or back on. */
  setAllowed(allowed: boolean): void {
    this.allowed = allowed;
    for (const sink of this.sinks) sink(this.copy());
  }

  get writable(): boolean {
    return this.allowed;
  }

  /** The messages bots sent, in the order received. */
  fromBots(): SimChatMessage[] {
    return this.messages.filter((m) => m.fromGuest !== null).map((m) => ({ ...m }));
  }

  /** Resolves once `test` holds of the chat. */
  async until(test: (messages: SimChatMessage[]) => boolean, timeoutMs = 20_000): Promise<SimChatMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this.messages)) {
      if (Date.now() > deadline) throw new Error(`the chat did not reach the awaited state in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, 200);
        this.waiters.add(wake);
      });
    }
    return this.copy();
  }

  follow(sink: ChatSink): () => void {
    this.sinks.add(sink);
    sink(this.copy());
    return () => this.sinks.delete(sink);
  }

  private copy(): SimChatMessage[] {
    return this.messages.map((m) => ({ ...m }));
  }
}

const chats = new WeakMap<SimMeeting, SimChat>();

/** The meeting's chat (made on first use). */
export function chatOf(meeting: SimMeeting): SimChat {
  let chat = chats.get(meeting);
  if (!chat) {
    chat = new SimChat();
    chats.set(meeting, chat);
  }
  return chat;
}

/** The bot pages' side: /_sim/api/chat-events and /_sim/api/chat. */
export async function handleChatApi(
  registry: MeetingRegistry,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const route = `${req.method} ${url.pathname.slice('/_sim/api/'.length)}`;
  if (route === 'GET chat-events') {
    const guestId = url.searchParams.get('guest') ?? '';
    const meeting = registry.meetingOfGuest(guestId);
    if (!meeting) return sendJson(res, 404, { error: 'unknown guest' });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 1000\n\n');
    const chat = chatOf(meeting);
    const stop = chat.follow((messages) =>
      res.write(`data: ${JSON.stringify({ messages, allowed: chat.writable })}\n\n`),
    );
    registry.trackStream(res);
    req.on('close', stop);
    return;
  }
  if (route === 'POST chat') {
    const body = await readJson(req);
    const guestId = String(body.guest);
    const meeting = registry.meetingOfGuest(guestId);
    const bot = meeting?.truth().bots.find((b) => b.guestId === guestId);
    if (!meeting || !bot || bot.screen !== 'in_call') return sendJson(res, 409, { error: 'not in the call' });
    if (!chatOf(meeting).writable) return sendJson(res, 403, { error: 'the host turned the chat off' });
    const text = String(body.text ?? '').trim();
    if (!text) return sendJson(res, 400, { error: 'empty message' });
    return sendJson(res, 200, { id: chatOf(meeting).post(bot.name, text, guestId).id });
  }
  return sendJson(res, 404, { error: `no chat route ${route}` });
}

/** The control API's chat routes; false when the request is none of them. */
export async function handleChatControl(
  meeting: SimMeeting,
  method: string,
  body: Record<string, unknown>,
  res: ServerResponse,
) {
  if (method === 'POST' && typeof body.allowed === 'boolean') {
    chatOf(meeting).setAllowed(body.allowed);
    return sendJson(res, 200, {});
  }
  if (method === 'POST') {
    if (typeof body.sender !== 'string' || typeof body.text !== 'string')
      throw new Error('sender and text are required');
    return sendJson(res, 200, { id: chatOf(meeting).post(body.sender, body.text).id });
  }
  return sendJson(res, 200, { messages: chatOf(meeting).messages });
}
