/**
 * Long-lived MCP connections that answer the plain tools/call (plain-tool-call.ts): one per API
 * key, base URL and protocol revision, each a server of ours connected to an in-process wire.
 * The wire is the SDK's per-request transport (`PerRequestHTTPServerTransport`, what its HTTP
 * handler connects a server to for one exchange), kept open for many: connecting a server to it
 * binds the server to 2026-07-28 when the wire is classified in it, as the SDK documents (a
 * 2025-era server stays in the default era), and each message goes in with that classification, as
 * the HTTP handler hands it over. Answers come out as the messages the SDK sends, not as a web
 * Response. So the SDK dispatches, validates and encodes every answer as on any connection; what is
 * not paid per call is what its HTTP entries need for one exchange: a web Request and Response, a
 * transport connected and closed, the era decided again. (The SDK's stdio entry, `serveStdio`, can
 * pin an era too, but its checks of every message made a call's SDK work half as much again;
 * docs/services/gateway.md has the figures, test/bench/mcp.bench.ts measures them.)
 *
 * A connection's server takes no caller from its messages: a connection belongs to one key, one
 * base URL and one revision, and its server's tools take the caller from it (createMcpServer's
 * `bound`). Requests of many HTTP exchanges share it, numbered by the connection; each answer goes
 * back with its own request's id.
 */
import {
  PerRequestHTTPServerTransport,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  type MessageExtraInfo,
} from '@modelcontextprotocol/server';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { RequestContext } from '../operations/operation.js';
import type { Era, PlainToolCall } from './plain-tool-call.js';
type TokenCaller = Extract<Caller, { kind: 'token' }>;

/** A server whose tools answer as `caller`, for requests to `request.baseUrl` (a 2026-07-28 one lists that revision). */
export type BoundServerFactory = (era: Era, caller: TokenCaller, request: RequestContext) => McpServer;

interface Waiting {
  resolve(message: JSONRPCMessage): void;
  reject(err: Error): void;
  /** The id the request came with, which its answer takes back. */
  requestId: JSONRPCRequest['id'];
}

const SENT = Promise.resolve();

/**
 * The server's side of a connection: `receive` hands it a message with the wire's classification,
 * what it sends goes to `out`. Of the per-request transport it keeps the binding made on connect;
 * its one-exchange delivery (`handleMessage`, the Response) is not used.
 */
class Wire extends PerRequestHTTPServerTransport {
  private readonly extra: MessageExtraInfo;
  /** Messages received before the server started listening, handed over when it does. */
  private early: JSONRPCMessage[] | undefined = [];
  private ended = false;

  constructor(
    era: Era,
    revision: string,
    private readonly out: (message: JSONRPCMessage) => void,
    private readonly onEnd: () => void,
  ) {
    const classification = { era, revision };
    super({ classification, responseMode: 'json' });
    this.extra = { classification };
  }

  override async start(): Promise<void> {
    const early = this.early ?? [];
    this.early = undefined;
    for (const message of early) this.onmessage?.(message, this.extra);
  }

  override send(message: JSONRPCMessage): Promise<void> {
    if (!this.ended) this.out(message);
    return SENT;
  }

  receive(message: JSONRPCMessage): void {
    if (this.early) this.early.push(message);
    else this.onmessage?.(message, this.extra);
  }

  override async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
    this.onclose?.();
  }
}

class Line {
  private readonly waiting = new Map<number, Waiting>();
  private readonly wire: Wire;
  private readonly server: McpServer;
  private next = 0;
  closed = false;

  constructor(era: Era, revision: string, server: McpServer, logger: Logger, onClosed: () => void) {
    this.wire = new Wire(
      era,
      revision,
      (message) => {
        const id = (message as { id?: unknown }).id;
        const waiting = typeof id === 'number' ? this.waiting.get(id) : undefined;
        if (!waiting) return; // a notification: none of our tools sends one
        this.waiting.delete(id as number);
        // The answer was built for this call alone: it takes the request's own id in place.
        waiting.resolve(Object.assign(message, { id: waiting.requestId }));
      },
      () => {
        this.closed = true;
        for (const waiting of this.waiting.values()) waiting.reject(new Error('MCP connection closed'));
        this.waiting.clear();
        onClosed();
      },
    );
    this.server = server;
    const onerror = (err: Error) => logger.debug({ err }, 'MCP tool call connection');
    server.server.onerror = onerror;
    server.connect(this.wire).catch((err: Error) => {
      onerror(err);
      void this.wire.close(); // whatever waits is refused
    });
  }

  get busy(): boolean {
    return this.waiting.size > 0;
  }

  /** The SDK's answer to `request`, carrying the request's own id. */
  call(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    const id = ++this.next;
    const answered = new Promise<JSONRPCMessage>((resolve, reject) =>
      this.waiting.set(id, { resolve, reject, requestId: request.id }),
    );
    try {
      this.wire.receive({ ...request, id });
    } catch (err) {
      this.waiting.delete(id);
      return Promise.reject(err);
    }
    return answered;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

export class ToolCallLines {
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly newServer: BoundServerFactory,
    private readonly logger: Logger,
    /** Connections kept; past that the least recently used idle one is closed. */
    private readonly max = 256,
  ) {}

  /** The SDK's answer to a plain tools/call (plain-tool-call.ts) made by `caller` to `request.baseUrl`. */
  answer(call: PlainToolCall, caller: TokenCaller, request: RequestContext): Promise<JSONRPCMessage> {
    const { era, revision, message } = call;
    const key = `${revision}\n${caller.tokenId}\n${request.baseUrl}`;
    let line = this.lines.get(key);
    this.lines.delete(key); // re-inserted last: Map order is the recency order
    if (!line || line.closed) {
      const opened: Line = new Line(era, revision, this.newServer(era, caller, request), this.logger, () => {
        if (this.lines.get(key) === opened) this.lines.delete(key);
      });
      line = opened;
    }
    this.evict();
    this.lines.set(key, line);
    return line.call(message);
  }

  async closeAll(): Promise<void> {
    const lines = [...this.lines.values()];
    this.lines.clear();
    await Promise.all(lines.map((line) => line.close().catch(() => {})));
  }

  /** Makes room for one more, closing the least recently used idle connections. */
  private evict(): void {
    if (this.lines.size < this.max) return;
    for (const [key, line] of this.lines) {
      if (this.lines.size < this.max) return;
      if (line.busy) continue;
      this.lines.delete(key);
      void line.close().catch(() => {});
    }
  }
}
