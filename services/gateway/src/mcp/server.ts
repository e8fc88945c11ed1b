/**
 * One definition of the MCP server (tools and resources) for both protocol eras: the 2026-07-28
 * handler takes one from a per-key pool for each request, a 2025-era session builds its own.
 */
import { McpServer, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/observability';
import type { BoundContext } from './caller.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';

export interface McpServerDeps {
  bus: Bus;
  logger: Logger;
}

const INSTRUCTIONS =
  'Notetaker joins Google Meet and Teams meetings as a bot and transcribes them. Start one with start_meeting, ' +
  'then follow it live by subscribing to notetaker://meetings/{meetingId}/transcript (or read it with ' +
  'get_transcript and `after`). Saved transcripts are searchable and listed per project; tasks run AI skills.';

/** The server's identity, as `initialize`, `server/discover` and each modern result's `_meta` name it. */
export const SERVER_INFO = { name: 'notetaker', title: 'Notetaker', version: '0.1.0' };

/** The per-request revision: a server serves it only when its supported versions list it. */
export const MODERN_REVISION = '2026-07-28';

/**
 * A server for a 2025-era session (`legacy`), or for 2026-07-28 exchanges (`modern`): listing the
 * modern revision is what lets the SDK's per-request transport bind it to that era when it
 * connects (the SDK's own HTTP handler adds it too, on the first exchange it serves; the tool call
 * lines rely on it). A `bound` server's tools answer as that caller whatever the exchange says
 * (tool-call-lines.ts).
 */
export function createMcpServer(deps: McpServerDeps, era: 'modern' | 'legacy', bound?: BoundContext): McpServer {
  const server = new McpServer(
    { ...SERVER_INFO },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
      instructions: INSTRUCTIONS,
      ...(era === 'modern' && { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] }),
    },
  );
  registerTools(server, deps.bus, deps.logger, bound);
  registerResources(server, deps);
  return server;
}

/**
 * Idle servers for the 2026-07-28 per-request path, kept per API key: building one (20 tools, 2
 * resources) cost more than the tool call it served. The SDK serves one exchange at a time on an
 * instance and closes its per-request transport after; then it comes back here. Each exchange
 * carries its own caller (AuthInfo), and a server is only ever reused for the key it served, so
 * nothing one key's client declared (its identity, capabilities) is seen by another key.
 */
export class ServerPool {
  private readonly idle = new Map<string, McpServer[]>();

  constructor(
    private readonly build: () => McpServer,
    /** Idle servers kept per key (more in flight at once are built, then dropped). */
    private readonly perKey = 8,
    /** Keys with idle servers kept, the least recently used dropped first. */
    private readonly maxKeys = 256,
  ) {}

  take(tokenId: string): McpServer {
    const free = this.idle.get(tokenId);
    const server = free?.pop() ?? this.build();
    if (free?.length === 0) this.idle.delete(tokenId);
    // The SDK calls the instance's own onclose once the exchange is over (the listen path and
    // refusals close an unconnected instance, which never calls it: that one is dropped).
    server.server.onclose = () => this.giveBack(tokenId, server);
    return server;
  }

  private giveBack(tokenId: string, server: McpServer): void {
    server.server.onclose = undefined;
    const free = this.idle.get(tokenId) ?? [];
    this.idle.delete(tokenId); // re-inserted last: Map order is the recency order
    if (free.length < this.perKey) free.push(server);
    this.idle.set(tokenId, free);
    if (this.idle.size > this.maxKeys) this.idle.delete(this.idle.keys().next().value!);
  }

  /** Idle servers held (for tests). */
  get size(): number {
    let n = 0;
    for (const free of this.idle.values()) n += free.length;
    return n;
  }

  clear(): void {
    this.idle.clear();
  }
}
