/**
 * The MCP tools, generated from the operations list: one per operation, its input schema the one
 * REST validates with, its output the body REST answers. A failure is a tool result with isError
 * and REST's own message; unknown tools and malformed requests stay JSON-RPC errors (the SDK
 * answers those).
 */
import crypto from 'node:crypto';
import type { CallToolResult, McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { Bus } from '@notetaker/bus';
import type { Caller } from '@notetaker/contracts';
import type { Logger } from '@notetaker/observability';
import { publicError } from '../http/errors.js';
import { OPERATIONS } from '../operations/index.js';
import { perform, type Operation, type RequestContext } from '../operations/operation.js';
import { callerOf, requestOf, type BoundContext } from './caller.js';

type Props = StandardSchemaWithJSON['~standard'];
type JsonOptions = Parameters<Props['jsonSchema']['input']>[0];
const converted = new WeakMap<z.ZodType, Map<string, Record<string, unknown>>>();
const notValidated: Props['validate'] = (value) => ({ value });

/**
 * A tool's input or output schema as the operation's own, its JSON Schema converted once (servers
 * are built per session and pooled per key), and nothing validated here:
 * - input: arguments are handed to the operation as they came; `perform` validates them with the
 *   REST schema, so a bad field gets REST's message word for word (the SDK's would reword it);
 * - output: the handler built the body from bus replies its routes' schemas checked, and
 *   re-checking a long transcript cost MCP a tenth of its time against REST.
 */
function withJsonSchemaOnce(schema: z.ZodType): StandardSchemaWithJSON {
  const standard = schema['~standard'] as unknown as Props;
  const once = (io: 'input' | 'output') => (options: JsonOptions) => {
    const key = `${io}:${options.target}`;
    let cache = converted.get(schema);
    if (!cache) converted.set(schema, (cache = new Map()));
    let json = cache.get(key);
    if (!json) cache.set(key, (json = standard.jsonSchema[io](options)));
    return json;
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'notetaker',
      validate: notValidated,
      jsonSchema: { input: once('input'), output: once('output') },
    },
  };
}

/**
 * Registers every operation's tool. Their caller and request come from the exchange's AuthInfo
 * (caller.ts), or from `bound`, for a server that serves one caller only (tool-call-lines.ts).
 */
export function registerTools(server: McpServer, bus: Bus, logger: Logger, bound?: BoundContext): void {
  for (const op of OPERATIONS) {
    const { title, description, annotations } = op.tool;
    server.registerTool(
      op.name,
      {
        title,
        description,
        inputSchema: withJsonSchemaOnce(op.input),
        outputSchema: withJsonSchemaOnce(op.output),
        annotations: { title, ...annotations },
      },
      (args: unknown, ctx) =>
        callTool(op, bus, logger, bound?.caller ?? callerOf(ctx), args, bound?.request ?? requestOf(ctx)),
    );
  }
}

/** One operation's tool result: the handler of its tool on every server (mcp/server.ts). */
async function callTool(
  op: Operation,
  bus: Bus,
  logger: Logger,
  caller: Caller,
  args: unknown,
  request: RequestContext,
): Promise<CallToolResult> {
  try {
    const body = (await perform(op, bus, caller, args, request)) as Record<string, unknown>;
    return { content: [{ type: 'text', text: op.tool.text(body) }], structuredContent: body };
  } catch (err) {
    return toolFailure(err, logger, op.name);
  }
}

function toolFailure(err: unknown, logger: Logger, toolName: string): CallToolResult {
  const { message } = publicError(err, crypto.randomUUID(), logger, { mcpTool: toolName });
  return { isError: true, content: [{ type: 'text', text: message }] };
}
