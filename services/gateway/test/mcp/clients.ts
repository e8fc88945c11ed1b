/**
 * The SDKs' own MCP clients, as the tests drive /mcp: the 2.x Client pinned to 2026-07-28 (the
 * current revision, per-request, `subscriptions/listen`) and the 1.x `@modelcontextprotocol/sdk`
 * Client (2025-11-25, a session with `Mcp-Session-Id`, `resources/subscribe`). One face for both so
 * a test runs unchanged on either era.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  type McpSubscription,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export type Era = 'modern' | 'legacy';
export const ERAS: Array<{ era: Era; label: string }> = [
  { era: 'modern', label: '2026-07-28 (2.x Client)' },
  { era: 'legacy', label: '2025-11-25 (1.x sdk Client, session)' },
];

export interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { properties?: Record<string, { description?: string }>; required?: string[] };
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
}

export interface McpTestClient {
  era: Era;
  /** The 2025 session id (legacy only). */
  sessionId?: string;
  listTools(): Promise<Tool[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** tools/call with params as given, unchecked by the client. */
  rawCall(params: Record<string, unknown>): Promise<unknown>;
  listResources(cursor?: string): Promise<{ resources: Array<{ uri: string; name: string }>; nextCursor?: string }>;
  listResourceTemplates(): Promise<Array<{ uriTemplate: string; name: string; mimeType?: string }>>;
  readResource(uri: string): Promise<Array<{ uri: string; mimeType?: string; text?: string }>>;
  /** Starts hearing `notifications/resources/updated` for `uri`: listen (modern) or subscribe (legacy). */
  follow(uri: string, onUpdated: (uri: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  apiKey: string;
  headers?: Record<string, string>;
}

export async function connectMcp(baseUrl: string, era: Era, options: ConnectOptions): Promise<McpTestClient> {
  const url = new URL(`${baseUrl}/mcp`);
  const headers = { Authorization: `Bearer ${options.apiKey}`, ...options.headers };
  return era === 'modern' ? connectModern(url, headers) : connectLegacy(url, headers);
}

/**
 * A client for one mocha suite: `connect` is called by a before() hook registered here (so it may
 * read what the suite's earlier hooks set up), and the client is closed by after(). The object
 * returned is filled in once that hook has run: use it inside hooks and tests.
 */
export function mcpPerSuite(connect: () => Promise<McpTestClient>): McpTestClient {
  const client = {} as McpTestClient;
  before(async () => {
    Object.assign(client, await connect());
  });
  after(() => client.close?.());
  return client;
}

async function connectModern(url: URL, headers: Record<string, string>): Promise<McpTestClient> {
  const client = new ModernClient(
    { name: 'notetaker-tests', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernTransport(url, { requestInit: { headers } }));
  const updated = new Set<(uri: string) => void>();
  client.setNotificationHandler('notifications/resources/updated', (n) => {
    for (const fn of updated) fn(n.params.uri);
  });
  return {
    era: 'modern',
    listTools: async () => (await client.listTools()).tools as Tool[],
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    rawCall: (params) => client.request({ method: 'tools/call', params } as never),
    listResources: async (cursor) => client.listResources(cursor === undefined ? undefined : { cursor }),
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: async (uri) =>
      (await client.readResource({ uri }, { cacheMode: 'bypass' })).contents as Array<{ uri: string; text?: string }>,
    async follow(uri, onUpdated) {
      const subscription: McpSubscription = await client.listen({ resourceSubscriptions: [uri] });
      const fn = (u: string) => u === uri && onUpdated(u);
      updated.add(fn);
      return async () => {
        updated.delete(fn);
        await subscription.close();
      };
    },
    close: () => client.close(),
  };
}

async function connectLegacy(url: URL, headers: Record<string, string>): Promise<McpTestClient> {
  const client = new LegacyClient({ name: 'notetaker-tests', version: '1.0.0' });
  const transport = new LegacyTransport(url, { requestInit: { headers } });
  await client.connect(transport);
  const updated = new Set<(uri: string) => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    for (const fn of updated) fn(n.params.uri);
  });
  return {
    era: 'legacy',
    sessionId: transport.sessionId,
    listTools: async () => (await client.listTools()).tools as Tool[],
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    rawCall: (params) => client.request({ method: 'tools/call', params } as never, CallToolResultSchema),
    listResources: async (cursor) => client.listResources(cursor === undefined ? undefined : { cursor }),
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    readResource: async (uri) => (await client.readResource({ uri })).contents as Array<{ uri: string; text?: string }>,
    async follow(uri, onUpdated) {
      await client.subscribeResource({ uri });
      const fn = (u: string) => u === uri && onUpdated(u);
      updated.add(fn);
      return async () => {
        updated.delete(fn);
        await client.unsubscribeResource({ uri });
      };
    },
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** A raw JSON-RPC POST to /mcp, as a client without an SDK would send it. */
export function postMcp(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
