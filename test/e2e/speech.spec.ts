/**
 * The bot speaks (issue 51, item 4), whole stack in real Chromium on each platform: POST /speak
 * with a text makes the stack's speech engine (espeak-ng behind /v1/audio/speech) say it, the bot
 * turns its microphone on with the platform's own button, plays the speech into the call through
 * its own microphone track and turns the microphone off. The simulated call hears that track; a
 * recognizer (pocketsphinx, apart from the stack) must hear the very words. An interrupt cuts a
 * speech short and says the new one; bad requests are refused with the field named.
 */
import { expect } from 'chai';
import { growWords, seedWithChoices } from '../simulators/index.js';
import { microphoneOf } from '../simulators/microphone.js';
import { spokenWav } from '../support/speech-engine/index.js';
import { eventually } from '../support/wait.js';
import { LONG_SPEECH, recognize, speak, SPOKEN, useRecognizer, useSpeechOutput } from './support/speech.js';
import { words } from './support/transcription.js';
import { payloadOf, useWorld, type StartedMeeting, type World } from './support/world.js';

const PLATFORMS = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
  { platform: 'zoom', label: 'Zoom' },
] as const;
const BOT_NAME = 'Notetaker';

const ofType = (world: World, meetingId: string, type: string) =>
  world
    .callbacks(meetingId)
    .filter((c) => c.eventType === type)
    .map(payloadOf);

async function liveMeeting(
  world: World,
  platform: (typeof PLATFORMS)[number]['platform'],
  markupSeed?: number,
): Promise<StartedMeeting> {
  const m = await world.start(platform, {
    meeting: { lobby: false, ...(markupSeed === undefined ? {} : { markupSeed }) },
  });
  m.sim.join('Alice Example');
  await world.waitForStatus(m.meetingId, 'live');
  await m.sim.waitForBot((b) => b.screen === 'in_call');
  return m;
}

describe('whole stack in real Chromium: the bot speaks', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { BOT_DISPLAY_NAME: BOT_NAME };
  const output = useSpeechOutput(env);
  const recognizer = useRecognizer(env);
  const world = useWorld(env);

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: a text is said in the call and heard as said, the microphone off before and after`, async () => {
      const m = await liveMeeting(world(), platform);
      const mic = microphoneOf(m.sim);
      expect(mic.on, 'the microphone before speaking').to.equal(false);
      const res = await speak(world(), m, { text: SPOKEN[0], voice: 'nova' });
      expect(res.status).to.equal(202);
      expect(await res.json()).to.deep.equal({ meetingId: m.meetingId, status: 'queued' });
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'speech_finished', 'speech_finished', 30_000);
      await eventually(() => mic.turns.length >= 2 && !mic.on, 'the microphone off again', 10_000);
      expect(mic.turns.map((t) => t.on)).to.deep.equal([true, false]);
      expect(words(await recognize(recognizer(), mic))).to.equal(words(SPOKEN[0]));
      // Silence, never the fake device's beep, from the microphone turned on until the speech.
      const startedAt = Date.parse(String(ofType(world(), m.meetingId, 'speech_started')[0].timestamp));
      expect(mic.pcm().length, 'audio heard while the microphone was on').to.be.above(16_000);
      expect(mic.loudSamples(mic.turns[0].at, startedAt - 100), 'sound before the speech').to.equal(0);
      expect(output().requests.map((r) => [r.input, r.voice])).to.deep.equal([[SPOKEN[0], 'nova']]);
      expect(ofType(world(), m.meetingId, 'speech_started').map((p) => p.text)).to.deep.equal([SPOKEN[0]]);
      expect(ofType(world(), m.meetingId, 'speech_finished')).to.deep.equal([{ text: SPOKEN[0] }]);
      // What the bot said is in the transcript once, by its name, as it was asked to say it.
      await eventually(
        () => ofType(world(), m.meetingId, 'segment_finalized').length >= 1,
        "the bot's segment",
        10_000,
      );
      const segments = ofType(world(), m.meetingId, 'segment_finalized');
      expect(segments.map((s) => [s.speaker, s.text, s.source])).to.deep.equal([[BOT_NAME, SPOKEN[0], 'bot']]);
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
    });

    it(`${label}: an interrupt cuts what is being said and says the new text`, async () => {
      const m = await liveMeeting(world(), platform);
      const mic = microphoneOf(m.sim);
      expect((await speak(world(), m, { text: LONG_SPEECH })).status).to.equal(202);
      const first = await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'speech_started',
        'the first speech_started',
        30_000,
      );
      const longMs = Number(payloadOf(first).durationMs);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect((await speak(world(), m, { text: SPOKEN[3], interrupt: true })).status).to.equal(202);
      await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'speech_finished' && payloadOf(c).text === SPOKEN[3],
        'the second speech finished',
        30_000,
      );
      expect(ofType(world(), m.meetingId, 'speech_finished')).to.deep.equal([
        { text: LONG_SPEECH, interrupted: true },
        { text: SPOKEN[3] },
      ]);
      await eventually(() => !mic.on, 'the microphone off again', 10_000);
      // The long speech was cut: what the call heard of it is far shorter than the whole.
      const second = ofType(world(), m.meetingId, 'speech_started')[1];
      const secondAt = Date.parse(String(second.timestamp));
      const firstAt = Date.parse(String(payloadOf(first).timestamp));
      expect(mic.loudSamples(firstAt - 500, secondAt - 300) / 16).to.be.below(longMs / 2);
      expect(words(await recognize(recognizer(), mic, secondAt - 300))).to.equal(words(SPOKEN[3]));
      expect(mic.turns.at(-1)?.on).to.equal(false);
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
    });
  }

  /** Each microphone button the simulators draw, as the real builds word and build it (FIELD-NOTES 7). */
  const BUTTONS = [
    { platform: 'google_meet', pinned: { micWording: 'shortcut', controlElement: 'button' } },
    { platform: 'google_meet', pinned: { micWording: 'plain', controlElement: 'div' } },
    { platform: 'teams', pinned: { micWording: 'short' } },
    { platform: 'teams', pinned: { micWording: 'mic' } },
    { platform: 'zoom', pinned: { micWording: 'long' } },
    { platform: 'zoom', pinned: { micWording: 'textOnly' } },
  ] as const;
  for (const { platform, pinned } of BUTTONS) {
    it(`${platform}, microphone button ${JSON.stringify(pinned)}: turned on to speak and off after`, async () => {
      const seed = seedWithChoices(platform, pinned, Math.floor(Math.random() * 1e9));
      const m = await liveMeeting(world(), platform, seed);
      const mic = microphoneOf(m.sim);
      expect((await speak(world(), m, { text: SPOKEN[1] })).status).to.equal(202);
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'speech_finished', 'speech_finished', 30_000);
      await eventually(() => mic.turns.length >= 2 && !mic.on, 'the microphone off again', 10_000);
      expect(mic.turns.map((t) => t.on)).to.deep.equal([true, false]);
      expect(words(await recognize(recognizer(), mic))).to.equal(words(SPOKEN[1]));
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
    });
  }

  for (const shown of [BOT_NAME, 'You']) {
    it(`the platform's captions of the bot's own voice (by "${shown}") do not add what it said a second time`, async () => {
      const m = await liveMeeting(world(), 'google_meet');
      expect((await speak(world(), m, { text: SPOKEN[0] })).status).to.equal(202);
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'speech_finished', 'speech_finished', 30_000);
      // The platform captions what the bot said, as it captions everyone; then a person speaks.
      await m.sim.speak(shown, growWords(SPOKEN[0]));
      await m.sim.speak('Alice Example', growWords(SPOKEN[1]));
      await eventually(
        () => ofType(world(), m.meetingId, 'caption_partial').some((p) => p.text === SPOKEN[1]),
        "Alice's last words read",
        10_000,
      );
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
      const segments = ofType(world(), m.meetingId, 'segment_finalized');
      expect(segments.map((s) => [s.speaker, words(String(s.text)), s.source])).to.deep.equal([
        [BOT_NAME, words(SPOKEN[0]), 'bot'],
        ['Alice Example', words(SPOKEN[1]), 'captions'],
      ]);
      const partials = ofType(world(), m.meetingId, 'caption_partial');
      expect(partials.map((p) => p.speaker)).to.not.include(shown);
    });
  }

  it("the bot's own voice never comes back in its transcription from audio as a participant's (recording on too)", async () => {
    // The call hands the bot its own track back (micEcho loopback): still never a participant's.
    const markupSeed = seedWithChoices('google_meet', { micEcho: 'loopback' }, Math.floor(Math.random() * 1e9));
    const m = await world().start('google_meet', {
      meeting: { lobby: false, markupSeed },
      request: { transcription: 'audio', recording: 'audio' },
    });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.screen === 'in_call');
    await m.sim.say('Alice Example', SPOKEN[1]);
    expect((await speak(world(), m, { text: SPOKEN[0] })).status).to.equal(202);
    await world().waitForCallback(m.meetingId, (c) => c.eventType === 'speech_finished', 'speech_finished', 30_000);
    await eventually(
      () => ofType(world(), m.meetingId, 'segment_finalized').some((s) => s.source === 'audio'),
      "Alice's words from the audio",
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended', 40_000);
    const segments = ofType(world(), m.meetingId, 'segment_finalized');
    expect(segments.map((s) => [s.speaker, words(String(s.text)), s.source])).to.have.deep.members([
      ['Alice Example', words(SPOKEN[1]), 'audio'],
      [BOT_NAME, words(SPOKEN[0]), 'bot'],
    ]);
    // Every request the transcription made was of Alice's voice: none heard the bot's words.
    const heard = recognizer().requests.map((r) => words(r.text ?? ''));
    expect(heard.filter((text) => text && words(SPOKEN[0]).startsWith(text))).to.deep.equal([]);
  });

  it('audio given as base64 WAV is played as it is, heard as said', async () => {
    const m = await liveMeeting(world(), 'google_meet');
    const mic = microphoneOf(m.sim);
    const audio = (await spokenWav(SPOKEN[2])).toString('base64');
    expect((await speak(world(), m, { audio })).status).to.equal(202);
    await world().waitForCallback(m.meetingId, (c) => c.eventType === 'speech_finished', 'speech_finished', 30_000);
    await eventually(() => !mic.on && mic.turns.length === 2, 'the microphone off again', 10_000);
    expect(words(await recognize(recognizer(), mic))).to.equal(words(SPOKEN[2]));
    expect(output().requests).to.have.length(0);
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended', 40_000);
  });

  it('bad input is a 400 naming the field; another key 404; a meeting not live 409', async () => {
    const m = await world().start('google_meet', { meeting: { lobby: true } });
    const refused = async (body: unknown, status: number, apiKey?: string) => {
      const res = await speak(world(), m, body, apiKey);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      return ((await res.json()) as { error: string }).error;
    };
    expect(await refused({}, 400)).to.match(/text or audio/);
    expect(await refused({ text: '   ' }, 400)).to.match(/^text/);
    expect(await refused({ text: 'x'.repeat(2001) }, 400)).to.match(/text must be at most 2000/);
    expect(await refused({ text: 42 }, 400)).to.match(/text must be a string/);
    expect(await refused({ text: 'hello', audio: 'UklGRg==' }, 400)).to.match(/not both/);
    expect(await refused({ audio: 'not base64!' }, 400)).to.match(/audio must be base64/);
    expect(await refused({ audio: Buffer.from('hello there').toString('base64') }, 400)).to.match(/WAV, Ogg or MP3/);
    expect(await refused({ text: 'hello', loud: true }, 400)).to.match(/loud/);
    expect(await refused({ text: 'hello', interrupt: 'yes' }, 400)).to.match(/interrupt/);
    const other = await world().t.createToken();
    expect(await refused({ text: 'hello' }, 404, other.apiKey)).to.match(/Not found/);
    // In the lobby: not live.
    await m.sim.waitForBot((b) => b.screen === 'lobby');
    expect(await refused({ text: 'hello' }, 409)).to.match(/not live/);
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended', 40_000);
    expect(await refused({ text: 'hello' }, 409)).to.match(/not live/);
    expect(microphoneOf(m.sim).turns).to.have.length(0);
  });
});

describe('whole stack in real Chromium: speaking without a speech engine', function () {
  this.timeout(60_000);
  const world = useWorld({});

  it('a text is a 400 naming TTS_BASE_URL; /readyz says speech output is off', async () => {
    const m = await world().start('google_meet', { meeting: { lobby: true } });
    const res = await speak(world(), m, { text: 'hello' });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.include('TTS_BASE_URL');
    const ready = (await (await fetch(`${world().t.baseUrl}/readyz`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(ready)).to.include('"speechOutput":"off"');
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended', 40_000);
  });
});
