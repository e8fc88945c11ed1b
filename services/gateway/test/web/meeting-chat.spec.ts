/**
 * The meeting chat in the web application (issue #51), on the real stack with the scripted
 * platform: the start form's notice is posted in the chat once the bot is in; a live meeting's
 * page has a box that posts in the chat as the bot (send_chat_message's handler); an ended
 * meeting's page lists its chat.
 */
import { expect } from 'chai';
import { eventually } from '../../../../test/support/wait.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';

describe('web application: the meeting chat', () => {
  const t = signedInStackPerSuite();

  it('posts the start form’s notice and the chat box’s messages, and lists the chat once the meeting ended', async () => {
    const page = await t.owner.get('/meetings');
    expect(page.text).to.match(/<input\s+id="f-announcement"\s+name="announcement"/);
    const started = await t.owner.submit('/meetings', {
      url: 'https://meet.google.com/cht-form-abc',
      project: 'general',
      saveTranscript: 'true',
      announcement: 'Notetaker transcribes this call for the team.',
    });
    expect(started.status).to.equal(303);
    const path = started.location!;
    const meetingId = path.split('/').pop()!;
    await eventually(() => t.platform.started.length === 1, 'the bot started');
    const bot = t.platform.started[0];
    await eventually(() => bot.posted.length === 1, 'the notice posted');
    expect(bot.posted).to.deep.equal(['Notetaker transcribes this call for the team.']);

    const live = await t.owner.get(path);
    expect(live.text).to.match(/<form id="chat-form" method="post" action="\/meetings\/[^"]+\/chat"/);
    const posted = await t.owner.submit(`${path}/chat`, { text: '  The deck is in the drive.  ' }, path);
    expect(posted.status).to.equal(303);
    expect(posted.location).to.equal(`${path}?notice=chat-queued`);
    await eventually(() => bot.posted.length === 2, 'the message posted');
    expect(bot.posted[1]).to.equal('The deck is in the drive.');
    const empty = await t.owner.submit(`${path}/chat`, { text: '' }, path);
    expect(empty.location).to.equal(`${path}?notice=chat-invalid`);
    bot.chat('Ada', 'Thanks!');

    await t.owner.submit(`${path}/stop`, {}, path);
    await eventually(async () => (await t.owner.get(path)).text.includes('Thanks!'), 'the chat on the ended page');
    const ended = await t.owner.get(path);
    expect(ended.text).to.not.contain('id="chat-form"');
    const order = ['Notetaker transcribes this call for the team.', 'The deck is in the drive.', 'Thanks!'].map((s) =>
      ended.text.indexOf(s),
    );
    expect(
      order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1])),
      'in order',
    ).to.equal(true);
    const late = await t.owner.submit(`${path}/chat`, { text: 'too late' }, path);
    expect(late.location).to.equal(`${path}?notice=chat-not-live`);
    expect(meetingId).to.match(/^meeting_/);
  });
});
