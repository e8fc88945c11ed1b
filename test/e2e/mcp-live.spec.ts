/**
 * An AI agent following a live meeting over MCP, in real Chromium against the Google Meet
 * simulator: the meeting is started with the start_meeting tool, two clients follow its transcript
 * (a 2026-07-28 client through `subscriptions/listen`, a 2025-11-25 session through
 * `resources/subscribe`), each reading only the new segments with get_transcript `after` on every
 * notification, until the meeting ends after stop_meeting. What each read is what was said.
 */
import { expect } from 'chai';
import { growWords } from '../simulators/index.js';
import { connectMcp, type Era, type McpTestClient } from '../../services/gateway/test/mcp/clients.js';
import { eventually } from '../support/wait.js';
import { finalizedSegments } from './support/stream.js';
import { useWorld } from './support/world.js';

interface Segment {
  speaker: string;
  text: string;
}

/** A client that reads what is new each time the transcript resource is updated. */
async function follower(mcp: McpTestClient, meetingId: string) {
  const read: Segment[] = [];
  let status = '';
  let notifications = 0;
  let reading = Promise.resolve();
  const readNew = async () => {
    const args = read.length === 0 ? { meetingId } : { meetingId, after: read.length - 1 };
    const result = await mcp.call('get_transcript', args);
    read.push(...(result.structuredContent!.segments as Segment[]));
    status = String(result.structuredContent!.status);
  };
  const stop = await mcp.follow(`notetaker://meetings/${meetingId}/transcript`, () => {
    notifications++;
    reading = reading.then(readNew);
  });
  return {
    read,
    get notifications() {
      return notifications;
    },
    async ended(timeoutMs = 30_000) {
      await eventually(
        async () => {
          await reading;
          // The last status heard is the failure's message.
          if (status !== 'ended') throw new Error(`last ${status}`);
          return true;
        },
        `${mcp.era}: an ended status heard`,
        timeoutMs,
      );
    },
    stop,
  };
}

describe('whole stack in real Chromium: an MCP client follows a live meeting to its end', function () {
  this.timeout(90_000);
  const world = useWorld();

  it('Google Meet: start_meeting, both eras subscribed, incremental reads by `after`, stop_meeting, ended', async () => {
    const w = world();
    const clients = new Map<Era, McpTestClient>();
    for (const era of ['modern', 'legacy'] as const)
      clients.set(era, await connectMcp(w.t.baseUrl, era, { apiKey: w.token.apiKey }));
    const agent = clients.get('modern')!;

    const nativeId = w.newNativeId('google_meet');
    const sim = w.sim.meeting(nativeId);
    const started = await agent.call('start_meeting', {
      url: w.sim.url('google_meet', nativeId),
      callbackUrl: `${w.rx.url}/hooks/notetaker`,
      title: 'Followed over MCP',
    });
    expect(started.isError, JSON.stringify(started.content)).to.not.equal(true);
    expect(started.structuredContent).to.include({ status: 'joining', platform: 'google_meet' });
    const meetingId = String(started.structuredContent!.meetingId);
    const followers = await Promise.all([...clients.values()].map((mcp) => follower(mcp, meetingId)));

    sim.join('Alice Example');
    await w.waitForStatus(meetingId, 'lobby');
    sim.admit();
    await w.waitForStatus(meetingId, 'live');
    await sim.waitForBot((bot) => bot.captionsOn);
    await sim.speak('Alice Example', growWords('Shall we go through the launch plan?'));
    await sim.speak('Bob Jones', growWords('Yes, the beta opens on Monday.'));
    await sim.speak('Alice Example', growWords('Then the docs must be ready by Friday.'));
    await w.waitForCallback(
      meetingId,
      () => finalizedSegments(w.callbacks(meetingId)).length === 3,
      'three segment_finalized',
    );

    const stopped = await agent.call('stop_meeting', { meetingId });
    expect(stopped.structuredContent).to.deep.equal({ meetingId, status: 'stopping' });
    const truth = sim.truth().segments.map(({ speaker, text }) => ({ speaker, text }));
    expect(truth.map((s) => s.text)).to.deep.equal([
      'Shall we go through the launch plan?',
      'Yes, the beta opens on Monday.',
      'Then the docs must be ready by Friday.',
    ]);
    for (const f of followers) {
      await f.ended();
      expect(f.read.map(({ speaker, text }) => ({ speaker, text }))).to.deep.equal(truth);
      expect(f.notifications).to.be.at.least(truth.length + 2);
      await f.stop();
    }
    for (const mcp of clients.values()) await mcp.close();
  });
});
