/**
 * The meeting chat through the drivers (issue #51), in real Chromium against the simulated Meet,
 * Teams and Zoom chat panels, in each way their page loads draw them (the button's and compose
 * box's wording, a list redrawn whole or grown, every message kept or only the last few): people's
 * messages arrive once each, in order, with their senders (runs of one sender's messages grouped
 * under one name too); the bot's message reaches the meeting exactly as sent and comes back as
 * its own; captions stay on with the panel open.
 */
import { expect } from 'chai';
import type { ChatMessage } from '@notetaker/contracts';
import {
  CHAT_CHOICES,
  chatOf,
  growWords,
  seedWithChoices,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import { driversOnSimulator, joinSimulated, RecordingListener } from './helpers.js';

class ChatListener extends RecordingListener {
  readonly chats: ChatMessage[] = [];
  chat(message: ChatMessage): void {
    this.chats.push(message);
  }
}

const PLATFORMS: SimPlatform[] = ['google_meet', 'teams', 'zoom'];

/** Each platform's page loads, one per way the chat is drawn (each wording; a list redrawn whole, grown, or windowed). */
const VARIANTS: Array<Record<keyof typeof CHAT_CHOICES, string>> = [
  { chatWording: 'a', chatRender: 'rebuild', chatWindow: 'all', chatTiming: 'prompt' },
  { chatWording: 'b', chatRender: 'append', chatWindow: 'all', chatTiming: 'late' },
  { chatWording: 'c', chatRender: 'rebuild', chatWindow: 'recent', chatTiming: 'late' },
];

describe('meeting chat through the drivers', function () {
  this.timeout(60_000);
  const suite = driversOnSimulator({ meetCaptionIdleMs: 1_000, zoomCaptionIdleMs: 800 });
  let n = 0;
  const idFor = (platform: SimPlatform) =>
    platform === 'google_meet'
      ? `cht-${'abcdefghijklmnopqrstuvwxyz'[n++ % 26]}mee-tng`
      : platform === 'teams'
        ? `19:meeting_SimChat${++n}Zq@thread.v2`
        : String(85_700_000_000 + ++n * 7919);

  /** A simulated meeting with `people` in it, and the bot in the call with its captions on. */
  async function inCall(platform: SimPlatform, people: string[], markupSeed?: number) {
    const id = idFor(platform);
    const meeting = suite.sim.meeting(id, { lobby: false, ...(markupSeed === undefined ? {} : { markupSeed }) });
    for (const name of people) meeting.join(name);
    const listener = new ChatListener();
    const driver = suite.factory.create({
      platform,
      url: suite.sim.url(platform, id),
      meetingId: `meeting_chat${n}`,
      displayName: 'Notetaker',
    });
    await driver.start(listener);
    await meeting.waitForBot((b) => b.screen === 'in_call' && b.captionsOn, 30_000);
    return { meeting, listener, driver };
  }

  for (const platform of PLATFORMS) {
    for (const variant of VARIANTS) {
      const seed = seedWithChoices(platform, variant, 1000 + n * 97);
      it(`${platform}: reads every message once in order and posts the bot's (${JSON.stringify(variant)}, seed ${seed})`, async () => {
        const { meeting, listener, driver } = await inCall(platform, ['Alice Park', 'Bob Stone'], seed);
        const chat = chatOf(meeting);
        // Runs of one sender, a repeated text, and more messages than a virtualized list keeps.
        const sent = [
          ['Alice Park', 'Hello everyone'],
          ['Alice Park', 'The agenda is at https://example.com/agenda'],
          ['Bob Stone', 'ok'],
          ['Bob Stone', 'ok'],
          ['Alice Park', 'Shall we start?'],
          ['Bob Stone', 'Yes'],
          ['Bob Stone', 'One more: *budget* <draft>'],
          ['Alice Park', 'ok'],
        ];
        for (const [i, [sender, text]] of sent.entries()) {
          chat.post(sender, text);
          // Some arrive together, some apart: a panel drawn once for two, or once each.
          if (i % 3 !== 1) await listener.until(() => listener.chats.length === i + 1, `message ${i + 1}`);
        }
        await listener.until(() => listener.chats.length >= sent.length, 'every message');
        await driver.sendChat!('Notes will be shared after the call.');
        chat.post('Alice Park', 'thanks');
        await listener.until(() => listener.chats.length >= sent.length + 2, 'the bot message and the reply');
        await new Promise((resolve) => setTimeout(resolve, 800));
        expect(listener.chats.map((m) => [m.sender, m.text, m.fromBot])).to.deep.equal([
          ...sent.map(([sender, text]) => [sender, text, false]),
          ['Notetaker', 'Notes will be shared after the call.', true],
          ['Alice Park', 'thanks', false],
        ]);
        expect(chat.fromBots().map((m) => [m.sender, m.text])).to.deep.equal([
          ['Notetaker', 'Notes will be shared after the call.'],
        ]);
        expect(meeting.truth().bots[0].captionsOn, 'captions stay on with the chat panel open').to.equal(true);
        // And are still read with the panel open.
        await meeting.speak('Alice Park', growWords('we are still captioned here'));
        await listener.until(
          () => listener.segments.some((s) => s.text === 'we are still captioned here'),
          'a segment',
        );
        await driver.leave();
      });
    }

    it(`${platform}: says why it cannot post when the host turned the chat off`, async () => {
      const { meeting, listener, driver } = await inCall(platform, ['Alice Park']);
      const chat = chatOf(meeting);
      chat.post('Alice Park', 'before the host closed it');
      await listener.until(() => listener.chats.length === 1, 'the message');
      chat.setAllowed(false);
      const failure = await driver.sendChat!('hello?').then(
        () => null,
        (err: Error) => err.message,
      );
      // The page hears of the host's switch a moment later: a post in that moment is refused by the
      // meeting and never shows; after it, the compose box is gone. Either way it fails, saying why.
      expect(failure).to.be.oneOf([
        'the chat compose box could not be found',
        'the message did not show in the chat after it was sent',
      ]);
      expect(chat.fromBots()).to.deep.equal([]);
      chat.setAllowed(true);
      await driver.sendChat!('back again');
      expect(chat.fromBots().map((m) => m.text)).to.deep.equal(['back again']);
      await driver.leave();
    });
  }
});
