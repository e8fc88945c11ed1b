/**
 * Every utterance gets its final, whole stack in real Chromium on each platform: the last words
 * before a track stops sending (the platform's media server stops the moment nobody speaks, the
 * track muted with no pause after the last word: the simulators' idle 'paused' draw), the words
 * cut off by the bot's stop, and the words cut off by the host ending the meeting. With captions
 * off (transcription from the audio), the real test speech engine hearing what the bot sends.
 */
import { expect } from 'chai';
import { seedWithAudio, type SimMeeting, type SimPlatform } from '../simulators/index.js';
import type { ReceivedCallback } from '../support/callback-receiver.js';
import { eventually, sleep } from '../support/wait.js';
import { finals, SENTENCES, useSpeechEngine, words } from './support/transcription.js';
import { payloadOf, statusOf, useWorld } from './support/world.js';

const [S1, S2, S3] = SENTENCES;
const PLATFORMS: Array<{ platform: SimPlatform; label: string }> = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
  { platform: 'zoom', label: 'Zoom' },
];
/** The engine's answer and the stream's delivery on a busy machine; without the fix: never, until the bot left. */
const FINAL_WITHIN_MS = 4_000;

/** Starts `speaker` saying `text` and resolves once 70% of it has been played into the call. */
async function cutOffSaying(meeting: SimMeeting, speaker: string, text: string): Promise<void> {
  void meeting.say(speaker, text);
  const said = await eventually(() => meeting.truth().utterances.find((u) => u.text === text), 'the utterance');
  await sleep(said.startedAt + said.durationMs * 0.7 - Date.now());
}

/** The finals received before the meeting's `ended`, and whether each came before it. */
function finalsBeforeEnded(callbacks: ReceivedCallback[]) {
  const ended = callbacks.findIndex((c) => c.eventType === 'meeting_status' && statusOf(c) === 'ended');
  expect(ended, 'ended').to.be.greaterThan(-1);
  return finals(callbacks.slice(0, ended));
}

/** The first words of `sentence`, at least two of them: what was heard of it before it was cut off. */
function expectStartOf(text: string, sentence: string) {
  const heard = words(text);
  expect(heard.split(' ').length, `"${heard}" of "${sentence}"`).to.be.at.least(2);
  expect(`${words(sentence)} `.startsWith(`${heard} `), `"${heard}" of "${sentence}"`).to.equal(true);
}

describe('whole stack in real Chromium: every utterance gets its final', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { STT_TIMEOUT_MS: '2500' };
  useSpeechEngine(env);
  const world = useWorld(env);

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: the last words before the track stops sending are final within seconds; words cut off by a stop are final before ended`, async () => {
      const seed = seedWithAudio(platform, { idle: 'paused' }, Math.floor(Math.random() * 2 ** 31));
      const m = await world().start(platform, {
        meeting: { lobby: false, captionsAllowed: false, markupSeed: seed },
      });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      await world().waitForStatus(m.meetingId, 'live');
      await eventually(
        () =>
          world()
            .callbacks(m.meetingId)
            .some((c) => payloadOf(c).warning === 'transcription_source_changed'),
        'the switch to audio',
        15_000,
      );
      await m.sim.say('Alice Example', S1);
      await eventually(() => finals(world().callbacks(m.meetingId)).length === 1, 'the final', FINAL_WITHIN_MS);
      expect(m.sim.truth().audioEvents.map((e) => e.event)).to.include('track_paused');

      await cutOffSaying(m.sim, 'Bob Example', S2);
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
      const heard = finalsBeforeEnded(world().callbacks(m.meetingId));
      expect(heard.map((s) => s.speaker)).to.deep.equal(['Alice Example', 'Bob Example']);
      expect(words(heard[0].text)).to.equal(words(S1));
      expectStartOf(heard[1].text, S2);
    });

    it(`${label}: the host ends the meeting mid-sentence: the words heard are final before ended`, async () => {
      const m = await world().start(platform, { meeting: { lobby: false }, request: { transcription: 'audio' } });
      m.sim.join('Alice Example');
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((b) => b.screen === 'in_call');
      await cutOffSaying(m.sim, 'Alice Example', S3);
      m.sim.end();
      const ended = await world().waitForStatus(m.meetingId, 'ended', 40_000);
      expect(payloadOf(ended).reason).to.equal('meeting_ended');
      const heard = finalsBeforeEnded(world().callbacks(m.meetingId));
      expect(heard).to.have.length(1);
      expectStartOf(heard[0].text, S3);
    });
  }
});
