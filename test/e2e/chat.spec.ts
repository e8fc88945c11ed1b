/**
 * The meeting chat through the whole stack (issue #51), in real Chromium against the simulated
 * Meet, Teams and Zoom: the start's announcement is posted once as soon as the bot is live;
 * people's messages arrive as chat_message callbacks once each, in order, with their senders, and
 * are in the transcript's `chat` and the saved document's Chat section, and found by search; a
 * message posted with POST /meetings/{id}/chat is seen by the meeting exactly as sent and comes back
 * as the bot's own. Bad input is a 400 naming `text`, another key's meeting a 404, a meeting not
 * live a 409.
 */
import { expect } from 'chai';
import { chatOf, type SimPlatform } from '../simulators/index.js';
import { finishedStream } from './support/stream.js';
import { payloadOf, useWorld, type StartedMeeting } from './support/world.js';

const ANNOUNCEMENT = 'Notetaker is transcribing this meeting; ask the host to remove it if you object.';

const PLATFORMS: Array<{ platform: SimPlatform; label: string }> = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
  { platform: 'zoom', label: 'Zoom' },
];

describe('whole stack in real Chromium: the meeting chat, read and written', function () {
  this.timeout(90_000);
  const world = useWorld();

  const chatMessages = (m: StartedMeeting) =>
    world()
      .callbacks(m.meetingId)
      .filter((c) => c.eventType === 'chat_message')
      .map((c) => payloadOf(c) as { sender: string; text: string; timestamp: string; fromBot: boolean });

  const postChat = (meetingId: string, json: unknown, token = world().token) =>
    world().t.api(`/meetings/${meetingId}/chat`, { method: 'POST', json, apiKey: token.apiKey });

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: the announcement once, people's messages once each in order, a posted message as sent; transcript, document, search`, async () => {
      const m = await world().start(platform, {
        title: `Chat check ${label}`,
        meeting: { lobby: false },
        request: { announcement: `  ${ANNOUNCEMENT}  ` },
      });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      await world().waitForStatus(m.meetingId, 'live');
      const chat = chatOf(m.sim);
      await chat.until((all) => all.some((x) => x.fromGuest !== null), 20_000);

      const said: Array<[string, string]> = [
        ['Alice Example', 'The plan is at https://example.com/plan'],
        ['Alice Example', 'Decision: we ship on Friday'],
        ['Bob Example', 'ok'],
        ['Bob Example', 'ok'],
        ['Alice Example', 'Thanks Bob'],
      ];
      for (const [sender, text] of said) chat.post(sender, text);
      await world().waitForCallback(
        m.meetingId,
        () => chatMessages(m).length >= said.length + 1,
        'the announcement and every message',
      );

      const posted = await postChat(m.meetingId, { text: 'Minutes will be sent by email.' });
      expect(posted.status).to.equal(202);
      expect(await posted.json()).to.deep.equal({ meetingId: m.meetingId, status: 'queued' });
      await world().waitForCallback(
        m.meetingId,
        () => chatMessages(m).some((x) => x.fromBot && x.text === 'Minutes will be sent by email.'),
        'the posted message read back',
      );
      // What the meeting received from the bot: exactly these, once each, in order.
      expect(chat.fromBots().map((x) => [x.sender, x.text])).to.deep.equal([
        ['Notetaker', ANNOUNCEMENT],
        ['Notetaker', 'Minutes will be sent by email.'],
      ]);

      const expected = [
        { sender: 'Notetaker', text: ANNOUNCEMENT, fromBot: true },
        ...said.map(([sender, text]) => ({ sender, text, fromBot: false })),
        { sender: 'Notetaker', text: 'Minutes will be sent by email.', fromBot: true },
      ];
      const strip = (xs: Array<{ sender: string; text: string; fromBot: boolean }>) =>
        xs.map(({ sender, text, fromBot }) => ({ sender, text, fromBot }));
      expect(strip(chatMessages(m))).to.deep.equal(expected);

      const transcript = await (await world().get(`/meetings/${m.meetingId}/transcript`)).json();
      expect(strip(transcript.chat)).to.deep.equal(expected);

      expect((await world().stop(m.meetingId)).status).to.equal(200);
      await finishedStream(world(), m, 'ended');
      const document = await (await world().get(`/meetings/${m.meetingId}/document`)).text();
      const section = document.slice(document.indexOf('## Chat'));
      const lines = section.split('\n').filter((line) => line.startsWith('- '));
      expect(lines.map((line) => line.replace(/ \(\d\d:\d\d:\d\d\)/, ''))).to.deep.equal([
        `- **Notetaker** (bot): ${ANNOUNCEMENT}`,
        '- **Alice Example**: The plan is at https://example.com/plan',
        '- **Alice Example**: Decision: we ship on Friday',
        '- **Bob Example**: ok',
        '- **Bob Example**: ok',
        '- **Alice Example**: Thanks Bob',
        '- **Notetaker** (bot): Minutes will be sent by email.',
      ]);
      const search = await (await world().get(`/search?q=${encodeURIComponent('ship on Friday')}`)).json();
      expect(search.results.find((r: { meetingId: string }) => r.meetingId === m.meetingId)).to.include({
        kind: 'chat',
        speaker: 'Alice Example',
      });
      // The meeting has ended: nothing more can be posted.
      const late = await postChat(m.meetingId, { text: 'too late' });
      expect(late.status).to.equal(409);
    });
  }

  it('Google Meet: a message the meeting does not take (the host turned the chat off) is a chat_failed warning saying why', async () => {
    const m = await world().start('google_meet', { title: 'Chat off', meeting: { lobby: false } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    const chat = chatOf(m.sim);
    chat.post('Alice Example', 'hello bot');
    await world().waitForCallback(m.meetingId, () => chatMessages(m).length === 1, 'the first message');
    chat.setAllowed(false);
    expect((await postChat(m.meetingId, { text: 'Can anyone read this?' })).status).to.equal(202);
    const warning = await world().waitForCallback(
      m.meetingId,
      (c) => c.eventType === 'meeting_status' && payloadOf(c).warning === 'chat_failed',
      'chat_failed',
    );
    // The page hears of the host's switch a moment later: a post in that moment is refused by the
    // meeting and never shows; after it, the compose box is gone. Either way it fails, saying why.
    expect(payloadOf(warning).status).to.equal('live');
    expect(payloadOf(warning).failure).to.be.oneOf([
      'the chat compose box could not be found',
      'the message did not show in the chat after it was sent',
    ]);
    expect(chat.fromBots()).to.deep.equal([]);
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended');
  });

  it('400 naming text for empty, too long or not a string; 404 for another key; 409 before the bot is live', async () => {
    const m = await world().start('google_meet', { title: 'Chat refusals' });
    const other = await world().t.createToken();
    // Still in the lobby: not live.
    await world().waitForStatus(m.meetingId, 'lobby');
    const early = await postChat(m.meetingId, { text: 'hello' });
    expect(early.status).to.equal(409);
    for (const text of ['   ', 'x'.repeat(501), 42]) {
      const res = await postChat(m.meetingId, { text });
      expect(res.status, JSON.stringify(text)).to.equal(400);
      expect((await res.json()).error).to.match(/^text/);
    }
    const missing = await postChat(m.meetingId, {});
    expect(missing.status).to.equal(400);
    expect((await missing.json()).error).to.match(/text/);
    const theirs = await postChat(m.meetingId, { text: 'hello' }, other as typeof m.token);
    expect(theirs.status).to.equal(404);
    const badStart = await world().startRaw({
      url: world().sim.url('google_meet', world().newNativeId('google_meet')),
      callbackUrl: `${world().rx.url}/hooks/notetaker`,
      announcement: 'x'.repeat(501),
    });
    expect(badStart.status).to.equal(400);
    expect((await badStart.json()).error).to.match(/^announcement/);
    m.sim.admit();
    await world().waitForStatus(m.meetingId, 'live');
    expect(chatOf(m.sim).fromBots(), 'no announcement without one asked (BOT_ANNOUNCEMENT unset)').to.deep.equal([]);
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended');
    expect(chatOf(m.sim).fromBots()).to.deep.equal([]);
  });
});
