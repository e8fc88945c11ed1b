/**
 * The placement bench's peer: a bare request/reply loop on raw nats.js (a responder and a
 * requester, with the connection options our bus uses), JSON of a start's size each way, on the
 * server the stack uses: what one round trip costs there and then.
 */
import { connect } from 'nats';

export async function bareLoop(url: string, body: () => unknown) {
  const server = await connect({ servers: url, name: 'bench-bare-server', noAsyncTraces: true });
  const client = await connect({ servers: url, name: 'bench-bare-client', noAsyncTraces: true });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const reply = encoder.encode(
    JSON.stringify({ meetingId: 'meeting_0000000000000_0000000000000000', status: 'joining', platform: 'google_meet' }),
  );
  server.subscribe('bench.placement.bare', {
    callback: (_err, msg) => {
      JSON.parse(decoder.decode(msg.data));
      msg.respond(reply);
    },
  });
  await server.flush();
  return {
    request: async () => {
      const answer = await client.request('bench.placement.bare', encoder.encode(JSON.stringify(body())), {
        timeout: 5000,
      });
      JSON.parse(decoder.decode(answer.data));
    },
    close: async () => void (await Promise.all([server.close(), client.close()])),
  };
}
