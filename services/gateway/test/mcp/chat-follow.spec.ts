/**
 * An agent taking part in a meeting over MCP (issue #51), on the whole stack with the scripted
 * platform: subscribed to the meeting's transcript, it hears of each chat message (the resource
 * changed), reads it in get_transcript's chat, and answers with send_chat_message, which the
 * meeting receives and the chat shows as the bot's own.
 */
import { expect } from 'chai';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';
import { eventually } from '../../../../test/support/wait.js';
import { meetUrl } from '../support/meeting-with-receiver.js';
import { connectMcp, ERAS, mcpPerSuite } from './clients.js';

describe('MCP: an agent follows the meeting chat and answers in it', function () {
  this.timeout(60_000);
  let t: TestStack;
  let driver: ScriptedDriverFactory;
  let key: { id: string; apiKey: string };

  before(async () => {
    driver = scriptedDriverFactory();
    t = await startTestStack({}, { driverFactory: driver });
    key = await t.createToken();
  });
  after(() => t.stop());

  for (const { era, label } of ERAS) {
    describe(label, () => {
      const mcp = mcpPerSuite(() => connectMcp(t.baseUrl, era, { apiKey: key.apiKey }));

      it('hears of a chat message through its transcript subscription and answers with send_chat_message', async () => {
        const started = await mcp.call('start_meeting', { url: meetUrl(), callbackUrl: 'http://127.0.0.1:9/hook' });
        const meetingId = String(started.structuredContent!.meetingId);
        const meeting = await driver.meeting(meetingId);
        const read = async () =>
          (await mcp.call('get_transcript', { meetingId })).structuredContent as {
            status: string;
            chat: Array<{ sender: string; text: string; fromBot: boolean }>;
          };
        await eventually(async () => (await read()).status === 'live', 'live');
        const answered: string[] = [];
        const stop = await mcp.follow(`notetaker://meetings/${meetingId}/transcript`, () => {
          void read().then(async ({ chat }) => {
            const question = chat.find((m) => !m.fromBot && m.text.endsWith('?'));
            if (!question || answered.length > 0) return;
            answered.push(question.text);
            await mcp.call('send_chat_message', { meetingId, text: `Noted, ${question.sender}.` });
          });
        });
        meeting.chat('Ada', 'Can the bot send the notes?');
        await eventually(() => meeting.posted.length === 1, 'the answer posted');
        expect(meeting.posted).to.deep.equal(['Noted, Ada.']);
        await eventually(async () => (await read()).chat.length === 2, 'the answer in the chat');
        expect((await read()).chat.map(({ sender, text, fromBot }) => [sender, text, fromBot])).to.deep.equal([
          ['Ada', 'Can the bot send the notes?', false],
          ['Notetaker', 'Noted, Ada.', true],
        ]);
        await stop();
        await mcp.call('stop_meeting', { meetingId });
      });
    });
  }
});
