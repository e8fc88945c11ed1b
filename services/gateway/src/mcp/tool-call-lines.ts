/**
 * Long-lived MCP connections that answer the plain tools/call (plain-tool-call.ts): one per API
 * key, base URL and protocol revision, each the SDK's own connection entry (`serveStdio`, the one that
 * serves a stdio pipe) over an in-memory wire (the SDK's `InMemoryTransport`). The SDK dispatches,
 * encodes and serializes every answer as on any connection; what is not paid per call is what the
 * HTTP entries need for one exchange: a web Request and Response, a transport connected and closed,
 * the era decided again; through them an MCP call cost 2-2.9x REST's server CPU for the same
 * operation, this way 1.3-2x (docs/services/gateway.md, test/bench/mcp.bench.ts).
 *
 * The entry pins a connection to the era of its first message, and hands its servers no caller (a
 * pipe has one peer): so a connection belongs to one key, one base URL and one protocol revision,
 * and its server's tools take the caller from it (createMcpServer's `bound`). Requests of many HTTP
 * exchanges share it, numbered by the connection; each answer goes back with its own request's id.
 */
import {
  InMemoryTransport,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import type { RequestContext } from '../operations/operation.js';
import type { Era, PlainToolCall } from './plain-tool-call.js';
type TokenCaller = Extract<Caller, { kind: 'token' }>;

/** A server whose tools answer as `caller`, for requests to `request.baseUrl`. */
export type BoundServerFactory = (era: Era, caller: TokenCaller, request: RequestContext) => McpServer;

interface Waiting {
  resolve(message: JSONRPCMessage): void;
  reject(err: Error): void;
}

class Line {
  private readonly waiting = new Map<number, Waiting>();
  private readonly client: InMemoryTransport;
  private readonly served: { close(): Promise<void> };
  private next = 0;
  closed = false;

  constructor(newServer: () => McpServer, logger: Logger, onClosed: () => void) {
    const [client, wire] = InMemoryTransport.createLinkedPair();
    this.client = client;
    client.onmessage = (message) => {
      const id = (message as { id?: unknown }).id;
      const waiting = typeof id === 'number' ? this.waiting.get(id) : undefined;
      if (!waiting) return; // a notification: none of our tools sends one
      this.waiting.delete(id as number);
      waiting.resolve(message);
    };
    client.onclose = () => {
      this.closed = true;
      for (const waiting of this.waiting.values()) waiting.reject(new Error('MCP connection closed'));
      this.waiting.clear();
      onClosed();
    };
    void client.start();
    this.served = serveStdio(newServer, {
      onerror: (err) => logger.debug({ err }, 'MCP tool call connection'),
      transport: wire,
    });
  }

  get busy(): boolean {
    return this.waiting.size > 0;
  }

  /** The SDK's answer to `request`, carrying the request's own id. */
  async call(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    const id = ++this.next;
    const answered = new Promise<JSONRPCMessage>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    await this.client.send({ ...request, id });
    return { ...(await answered), id: request.id } as JSONRPCMessage;
  }

  close(): Promise<void> {
    return this.served.close();
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
      const opened: Line = new Line(
        () => this.newServer(era, caller, request),
        this.logger,
        () => {
          if (this.lines.get(key) === opened) this.lines.delete(key);
        },
      );
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
    for (const [key, line] of this.lines) {
      if (this.lines.size < this.max) return;
      if (line.busy) continue;
      this.lines.delete(key);
      void line.close().catch(() => {});
    }
  }
}
