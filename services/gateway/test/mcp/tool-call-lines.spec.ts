/**
 * The long-lived SDK connections plain tool calls are answered on (mcp/tool-call-lines.ts): one per
 * key, base URL and revision, shared by concurrent calls each answered with its own id, and
 * bounded, closing only idle ones. Servers here are real SDK servers with one tool that answers
 * with the caller it was bound to; a 2026-07-28 connection answers in that revision (`resultType`).
 */
import { expect } from 'chai';
import { McpServer, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest } from '@modelcontextprotocol/server';
import { silentLogger } from '@notetaker/observability';
import type { PlainToolCall } from '../../src/mcp/plain-tool-call.js';
import { ToolCallLines } from '../../src/mcp/tool-call-lines.js';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Token = { kind: 'token'; tokenId: string; capabilities: [] };
const caller = (tokenId: string): Token => ({ kind: 'token', tokenId, capabilities: [] });
const request = { baseUrl: 'http://127.0.0.1:1' };

function call(id: string | number, modern = true): PlainToolCall {
  const params = { name: 'who', arguments: {}, ...(modern && { _meta: ENVELOPE }) };
  const message = { jsonrpc: '2.0', id, method: 'tools/call', params } as JSONRPCRequest;
  return modern
    ? { message, era: 'modern', revision: '2026-07-28' }
    : { message, era: 'legacy', revision: '2025-11-25' };
}

describe('MCP tool call connections', () => {
  let built: string[];
  /** Calls of key b wait for this while it is set. */
  let gate: Promise<void> | undefined;
  let lines: ToolCallLines;

  function linesOf(max?: number) {
    return new ToolCallLines(
      (era, bound) => {
        built.push(`${era} ${bound.tokenId}`);
        // A 2026-07-28 server lists that revision, as createMcpServer's do.
        const versions =
          era === 'modern' ? [...SUPPORTED_PROTOCOL_VERSIONS, '2026-07-28'] : SUPPORTED_PROTOCOL_VERSIONS;
        const server = new McpServer(
          { name: 'test', version: '1' },
          { capabilities: { tools: {} }, supportedProtocolVersions: versions },
        );
        server.registerTool('who', {}, async () => {
          if (bound.tokenId === 'b') await gate;
          return { content: [{ type: 'text', text: bound.tokenId }] };
        });
        return server;
      },
      silentLogger(),
      max,
    );
  }

  beforeEach(() => {
    built = [];
    gate = undefined;
  });
  afterEach(() => lines.closeAll());

  it('answers concurrent calls on one connection per key and revision, each with its own id', async () => {
    lines = linesOf();
    const answers = await Promise.all([
      lines.answer(call(7), caller('a'), request),
      lines.answer(call('x'), caller('a'), request),
      lines.answer(call(7), caller('b'), request),
      lines.answer(call(9, false), caller('a'), request),
    ]);
    const texts = answers.map(
      (a) => (a as unknown as { result: { content: Array<{ text: string }> } }).result.content[0].text,
    );
    expect(answers.map((a) => (a as { id: unknown }).id)).to.deep.equal([7, 'x', 7, 9]);
    expect(texts).to.deep.equal(['a', 'a', 'b', 'a']);
    expect(answers[0]).to.have.nested.property('result.resultType', 'complete');
    expect(answers[3]).to.not.have.nested.property('result.resultType');
    expect(built.sort()).to.deep.equal(['legacy a', 'modern a', 'modern b']);
  });

  it('keeps at most `max` connections, closing only idle ones', async () => {
    lines = linesOf(1);
    await lines.answer(call(1), caller('a'), request);
    await lines.answer(call(1), caller('b'), request); // a was idle: closed
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    const waiting = lines.answer(call(2), caller('b'), request);
    const other = await lines.answer(call(1), caller('c'), request); // b is busy: kept
    open();
    expect(other).to.have.nested.property('result.content[0].text', 'c');
    expect(await waiting).to.have.nested.property('result.content[0].text', 'b');
    await lines.answer(call(3), caller('b'), request); // b again: c was idle, closed
    await lines.answer(call(2), caller('a'), request);
    expect(built).to.deep.equal(['modern a', 'modern b', 'modern c', 'modern a']);
  });
});
