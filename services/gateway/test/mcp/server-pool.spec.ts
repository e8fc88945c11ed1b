/**
 * The 2026-07-28 path reuses MCP servers per API key instead of building one per request: a reused
 * server must answer each request as its own caller, never another key's.
 */
import { expect } from 'chai';
import { McpServer } from '@modelcontextprotocol/server';
import { ServerPool } from '../../src/mcp/server.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';
import { connectMcp } from './clients.js';

describe('MCP server reuse (2026-07-28)', function () {
  this.timeout(60_000);

  it('gives a server back to the key it served, and never to another key', async () => {
    let built = 0;
    const pool = new ServerPool(() => (built++, new McpServer({ name: 't', version: '1' })));
    const a = pool.take('key-a');
    a.server.onclose!(); // the SDK's end of the exchange
    const b = pool.take('key-b');
    expect(b).to.not.equal(a);
    expect(pool.take('key-a')).to.equal(a);
    expect(built).to.equal(2);
  });

  describe('on the whole stack', () => {
    let t: TestStack;
    before(async () => {
      t = await startTestStack({}, { driverFactory: scriptedDriverFactory() });
    });
    after(() => t.stop());

    it("answers each key's calls, interleaved and concurrent, with that key's meetings only", async () => {
      const keys = await Promise.all([t.createToken([]), t.createToken([])]);
      const mine: string[] = [];
      for (const [i, key] of keys.entries()) {
        const res = await t.api('/meetings/start', {
          method: 'POST',
          apiKey: key.apiKey,
          json: { url: `https://meet.google.com/poo-lkey-${'ab'[i]}zz`, callbackUrl: 'http://127.0.0.1:9/hook', saveTranscript: false },
        });
        expect(res.status, await res.clone().text()).to.equal(201);
        mine.push(((await res.json()) as { meetingId: string }).meetingId);
      }
      const clients = await Promise.all(keys.map((key) => connectMcp(t.baseUrl, 'modern', { apiKey: key.apiKey })));
      try {
        const calls = Array.from({ length: 40 }, async (_, n) => {
          const who = n % 2;
          const result = await clients[who].call('list_meetings');
          const ids = (result.structuredContent!.meetings as Array<{ meetingId: string }>).map((m) => m.meetingId);
          expect(ids, `call ${n} as key ${who}`).to.deep.equal([mine[who]]);
        });
        await Promise.all(calls);
        // A foreign meeting stays not found on a server the other key used just before.
        const foreign = await clients[0].call('get_transcript', { meetingId: mine[1] });
        expect(foreign.isError).to.equal(true);
      } finally {
        await Promise.all(clients.map((c) => c.close()));
      }
    });
  });
});
