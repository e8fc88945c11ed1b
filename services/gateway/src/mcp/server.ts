/**
 * One definition of the MCP server (tools and resources) for both protocol eras: the 2026-07-28
 * handler builds one per request, a 2025-era session one per session.
 */
import { McpServer } from '@modelcontextprotocol/server';
import type { Bus } from '@notetaker/bus';
import type { Logger } from '@notetaker/kit';
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

export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer(
    { name: 'notetaker', title: 'Notetaker', version: '0.1.0' },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false } },
      instructions: INSTRUCTIONS,
    },
  );
  registerTools(server, deps.bus, deps.logger);
  registerResources(server, deps);
  return server;
}
