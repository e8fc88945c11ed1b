/**
 * The meeting chat on the bus (issue #51), with a scripted platform: send_chat_message answered
 * queued and posted in the order asked, each post read back as the bot's own chat_message; a
 * post the platform refuses is a chat_failed warning with why; the announcement (the start's, else
 * BOT_ANNOUNCEMENT) posted once when the bot is live; 404 for another key, 409 when not live.
 */
import { expect } from 'chai';
import type { ServiceError } from '@notetaker/contracts';
import { scriptedDriverFactory } from '../../../test/support/scripted-driver.js';
import { eventually } from '../../../test/support/wait.js';
import { OTHER_CALLER, startHarness, TOKEN_CALLER, type Harness } from './support/harness.js';

const refusal = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (err: ServiceError) => ({ status: err.status, message: err.message }),
  );

describe('meeting chat (bus contract)', () => {
  describe('with BOT_ANNOUNCEMENT set', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness({ BOT_ANNOUNCEMENT: '  This meeting is transcribed by Notetaker.  ' });
    });
    after(() => h.stop());

    it('posts the announcement once when live, then the asked messages in order, each read back as the bot’s', async () => {
      const { meetingId, bot } = await h.startLive();
      bot.chat('Ada', 'Welcome!');
      for (const text of ['first', 'second', '  third  '])
        expect(await h.request('chat', { caller: TOKEN_CALLER, meetingId, text })).to.deep.equal({
          meetingId,
          status: 'queued',
        });
      await eventually(() => bot.posted.length === 4, 'four posts');
      expect(bot.posted).to.deep.equal(['This meeting is transcribed by Notetaker.', 'first', 'second', 'third']);
      await eventually(
        () => h.events(meetingId).filter((e) => e.type === 'chat_message').length === 5,
        'five messages',
      );
      const messages = h
        .events(meetingId)
        .filter((e) => e.type === 'chat_message')
        .map(({ payload: { sender, text, fromBot } }) => [sender, text, fromBot]);
      expect(messages).to.deep.equal([
        ['Notetaker', 'This meeting is transcribed by Notetaker.', true],
        ['Ada', 'Welcome!', false],
        ['Notetaker', 'first', true],
        ['Notetaker', 'second', true],
        ['Notetaker', 'third', true],
      ]);
    });

    it('takes the start’s announcement over BOT_ANNOUNCEMENT', async () => {
      const { bot } = await h.startLive({ announcement: 'Recorded for the minutes.' });
      await eventually(() => bot.posted.length === 1, 'one post');
      expect(bot.posted).to.deep.equal(['Recorded for the minutes.']);
    });

    it('keeps at most 10,000 characters of a message read and 200 of its sender, cut with an ellipsis', async () => {
      const { meetingId, bot } = await h.startLive();
      bot.chat('A'.repeat(300), 'x'.repeat(30_000));
      const message = await h.waitForEvent(meetingId, (e) => e.type === 'chat_message' && !e.payload.fromBot);
      expect(message.payload.sender).to.equal(`${'A'.repeat(199)}…`);
      expect(message.payload.text).to.equal(`${'x'.repeat(9_999)}…`);
    });

    it('answers 404 for another key’s meeting and 409 once the meeting is not live', async () => {
      const { meetingId, bot } = await h.startLive();
      expect(await refusal(h.request('chat', { caller: OTHER_CALLER, meetingId, text: 'hi' }))).to.include({
        status: 404,
      });
      await h.request('stop', { caller: TOKEN_CALLER, meetingId });
      await h.waitForEvent(meetingId, (e) => e.payload.status === 'ended');
      expect(await refusal(h.request('chat', { caller: TOKEN_CALLER, meetingId, text: 'hi' }))).to.deep.equal({
        status: 409,
        message: 'Meeting is not live',
      });
      expect(bot.posted).to.deep.equal(['This meeting is transcribed by Notetaker.']);
    });
  });

  describe('on a platform that refuses the post', () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(
        {},
        { driver: scriptedDriverFactory({ chatRefused: 'the chat compose box could not be found' }) },
      );
    });
    after(() => h.stop());

    it('says chat_failed with the reason, and posts no announcement without one', async () => {
      const { meetingId, bot } = await h.startLive();
      await h.request('chat', { caller: TOKEN_CALLER, meetingId, text: 'hello' });
      const warning = await h.waitForEvent(meetingId, (e) => e.payload.warning === 'chat_failed');
      expect(warning.payload).to.include({
        status: 'live',
        previousStatus: 'live',
        failure: 'the chat compose box could not be found',
      });
      expect(bot.posted).to.deep.equal([]);
      expect(h.events(meetingId).filter((e) => e.payload.warning === 'chat_failed')).to.have.length(1);
    });
  });
});
