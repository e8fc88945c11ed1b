/**
 * Transcription from the meeting's audio, whole stack in real Chromium: the simulators speak with
 * espeak-ng over WebRTC, a real speech engine (pocketsphinx behind OpenAI's API) hears what the
 * bot sends it, and the transcript must hold every sentence once, by the right speaker, whether
 * captions were off from the start, went off and came back, or never counted (`audio`). The
 * speakers come from what the page shows (the look a tile takes while its person speaks, learned
 * per meeting): on every kind of indicator the simulators draw, and "Unknown", counted in the
 * meeting's status, for speech no tile showed.
 */
import { expect } from 'chai';
import {
  choiceOf,
  describeMarkup,
  MEET_CHOICES,
  seedWithChoice,
  variantSeeds,
  ZOOM_CHOICES,
} from '../simulators/index.js';
import { eventually, sleep } from '../support/wait.js';
import { expectHeard, finals, SENTENCES, useSpeechEngine, words } from './support/transcription.js';
import { payloadOf, useWorld, type World } from './support/world.js';

const [S1, S2, S3, S4, S5, S6, S7] = SENTENCES;
const PLATFORMS = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
  { platform: 'zoom', label: 'Zoom' },
] as const;

const switches = (world: World, meetingId: string) =>
  world
    .callbacks(meetingId)
    .map(payloadOf)
    .filter((p) => p.warning === 'transcription_source_changed')
    .map((p) => p.source);

async function stopAndCollect(world: World, meetingId: string) {
  await world.stop(meetingId);
  await world.waitForStatus(meetingId, 'ended', 40_000);
  return finals(world.callbacks(meetingId));
}

describe('whole stack in real Chromium: transcription from audio', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { STT_TIMEOUT_MS: '2500' };
  const engine = useSpeechEngine(env);
  const world = useWorld(env);

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: captions turned off by the host from the start: the transcript comes from the audio, by the right speakers`, async () => {
      const m = await world().start(platform, { meeting: { lobby: false, captionsAllowed: false } });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((b) => b.screen === 'in_call');
      // Said before the bot can know captions will not come: held back, then transcribed.
      await m.sim.say('Alice Example', S1);
      await eventually(() => switches(world(), m.meetingId).length === 1, 'the switch to audio', 15_000);
      await m.sim.say('Bob Example', S2);
      await eventually(() => finals(world().callbacks(m.meetingId)).length >= 2, 'two finals', 30_000);
      const heard = await stopAndCollect(world(), m.meetingId);
      expectHeard(heard, [
        { speaker: 'Alice Example', text: S1, source: 'audio' },
        { speaker: 'Bob Example', text: S2, source: 'audio' },
      ]);
      expect(switches(world(), m.meetingId)).to.deep.equal(['audio']);
      // Said while the audio was the source: partials showed Bob's words before the final.
      const partials = world()
        .callbacks(m.meetingId)
        .filter((c) => c.eventType === 'caption_partial')
        .map(payloadOf);
      expect(partials.map((p) => p.speaker)).to.include('Bob Example');
      expect(partials.every((p) => p.source === 'audio')).to.equal(true);
      expect(words(String(partials.at(-1)!.stableText))).to.satisfy((stable: string) => words(S2).startsWith(stable));
      const document = await (await world().get(`/meetings/${m.meetingId}/document`, m.token)).text();
      expect(document).to.include("_Transcribed from the meeting's audio (speech engine) from here on._");
      expect(words(document)).to.include(words(S2));
    });
  }

  it('Google Meet, auto: captions go off mid-meeting and come back; each sentence once, from the source that had it', async () => {
    const m = await world().start('google_meet', { meeting: { lobby: false } });
    m.sim.join('Alice Example');
    m.sim.join('Bob Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.captionsOn);
    await m.sim.say('Alice Example', S1);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 1, 'the captioned final', 20_000);

    m.sim.setCaptionsAllowed(false);
    // Said before the bot can tell the captions are gone for good: the audio goes back for it.
    await m.sim.say('Bob Example', S2);
    await sleep(600);
    await m.sim.say('Alice Example', S3);
    await eventually(() => switches(world(), m.meetingId).length === 1, 'the switch to audio', 15_000);

    m.sim.setCaptionsAllowed(true);
    await eventually(() => switches(world(), m.meetingId).length === 2, 'the switch back to captions', 20_000);
    await m.sim.say('Bob Example', S4);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 4, 'four finals', 30_000);
    const { meetings } = await (await world().get('/meetings/status', m.token)).json();
    const live = meetings.find((s: { meetingId: string }) => s.meetingId === m.meetingId);
    expect(live.transcription).to.deep.equal({ mode: 'auto', source: 'captions' });
    const heard = await stopAndCollect(world(), m.meetingId);
    expectHeard(heard, [
      { speaker: 'Alice Example', text: S1, source: 'captions' },
      { speaker: 'Bob Example', text: S2, source: 'audio' },
      { speaker: 'Alice Example', text: S3, source: 'audio' },
      { speaker: 'Bob Example', text: S4, source: 'captions' },
    ]);
    expect(switches(world(), m.meetingId)).to.deep.equal(['audio', 'captions']);
  });

  it('Google Meet, audio: two people talking at once keep their own words (a track each)', async () => {
    const m = await world().start('google_meet', {
      meeting: { lobby: false },
      request: { transcription: 'audio' },
    });
    m.sim.join('Alice Example');
    m.sim.join('Bob Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.screen === 'in_call');
    const alice = m.sim.say('Alice Example', S5);
    await sleep(1200);
    await Promise.all([alice, m.sim.say('Bob Example', S6)]);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 2, 'two finals', 30_000);
    const heard = await stopAndCollect(world(), m.meetingId);
    const bySpeaker = Object.fromEntries(heard.map((s) => [s.speaker, words(s.text)]));
    expect(bySpeaker).to.deep.equal({ 'Alice Example': words(S5), 'Bob Example': words(S6) });
    expect(heard.every((s) => s.source === 'audio')).to.equal(true);
  });

  it('Microsoft Teams, audio: an engine that fails, limits or hangs gives warnings and marked gaps, never a stuck meeting', async () => {
    const m = await world().start('teams', { meeting: { lobby: false }, request: { transcription: 'audio' } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.screen === 'in_call');
    const sent = () => engine().requests.length;

    // One 500, then a 429 asking for a second: retried, the words arrive.
    engine().failNext(1, 500);
    await m.sim.say('Alice Example', S1);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 1, 'the retried final', 20_000);
    // Rate-limited for a second on any new audio: the final waits out Retry-After and gets through
    // with the same audio; no audio is sent again sooner.
    engine().limitNewAudio = 1;
    await m.sim.say('Alice Example', S2);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 2, 'the final after a 429', 20_000);
    engine().limitNewAudio = null;
    const limited = engine().requests.filter((r) => r.status === 429);
    const retried = engine().requests.filter(
      (r) => r.status === 200 && limited.some((l) => l.fileSha256 === r.fileSha256),
    );
    expect(retried, 'the final, tried again with the same audio').to.have.length(1);
    const first = limited.find((l) => l.fileSha256 === retried[0].fileSha256)!;
    expect(retried[0].at - first.at, 'Retry-After honoured').to.be.at.least(900);

    // Hung: every attempt times out; the speech is marked, the meeting goes on.
    engine().hang = true;
    const before = sent();
    await m.sim.say('Alice Example', S3);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 3, 'the untranscribed mark', 30_000);
    expect(sent()).to.be.greaterThan(before);
    const warned = world()
      .callbacks(m.meetingId)
      .map(payloadOf)
      .filter((p) => p.warning === 'transcription_unavailable');
    expect(warned).to.have.length(1);
    expect(warned[0].status).to.equal('live');

    engine().reset();
    await m.sim.say('Alice Example', S4);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 4, 'words again', 30_000);
    const heard = await stopAndCollect(world(), m.meetingId);
    expect(heard.map((s) => words(s.text))).to.deep.equal([words(S1), words(S2), '', words(S4)]);
    expect(heard[2].untranscribed?.reason).to.equal('engine_unavailable');
    expect(heard[2].speaker).to.equal('Alice Example');
    const transcript = await (await world().get(`/meetings/${m.meetingId}/transcript`, m.token)).json();
    expect(transcript.segments.map((s: { source: string }) => s.source)).to.deep.equal([
      'audio',
      'audio',
      'audio',
      'audio',
    ]);
    expect(transcript.segments[2].untranscribed).to.deep.equal(heard[2].untranscribed);
    const document = await (await world().get(`/meetings/${m.meetingId}/document`, m.token)).text();
    expect(document).to.match(/_\[not transcribed until \d\d:\d\d:\d\d: the speech engine did not answer\]_/);
  });

  it('passes the meeting language to the engine (de-DE as de) and its key as a bearer token', async () => {
    const m = await world().start('teams', {
      meeting: { lobby: false },
      request: { transcription: 'audio', language: 'de-DE' },
    });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.screen === 'in_call');
    const from = Date.now();
    await m.sim.say('Alice Example', S7);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 1, 'a final', 20_000);
    await stopAndCollect(world(), m.meetingId);
    const mine = engine().requests.filter((r) => r.at >= from);
    expect(mine.length).to.be.greaterThan(0);
    expect(mine.every((r) => r.language === 'de' && r.authorization === 'Bearer sk-test-speech')).to.equal(true);
  });
});

describe('whole stack in real Chromium: speakers from what the page shows, captions off', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { STT_TIMEOUT_MS: '2500' };
  useSpeechEngine(env);
  const world = useWorld(env);
  const from = variantSeeds(1)[0];
  // Meet and Zoom on each kind of indicator their builds draw; Teams on one drawn per run.
  const cases = [
    ...(
      [
        ['google_meet', MEET_CHOICES.speakingMark],
        ['zoom', ZOOM_CHOICES.speakingMark],
      ] as const
    ).flatMap(([platform, marks]) =>
      marks.map((mark: string, i: number) => ({
        platform,
        seed: seedWithChoice(platform, 'speakingMark', mark, from + i * 7_919),
      })),
    ),
    { platform: 'teams' as const, seed: from },
  ];

  for (const { platform, seed } of cases) {
    const label = `${PLATFORMS.find((p) => p.platform === platform)!.label} (speaking: ${choiceOf(platform, seed, 'speakingMark')}, seed ${seed})`;
    it(`${label}: each sentence by its speaker; one no tile showed is Unknown, and counted`, async () => {
      const where = describeMarkup(platform, seed);
      const m = await world().start(platform, {
        meeting: { lobby: false, captionsAllowed: false, markupSeed: seed },
        request: { transcription: 'audio' },
      });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((b) => b.screen === 'in_call');
      await m.sim.say('Alice Example', S1);
      await sleep(800);
      await m.sim.say('Bob Example', S2);
      await sleep(800);
      await m.sim.say('Alice Example', S3);
      await sleep(800);
      await m.sim.say('Bob Example', S4, { unseen: true });
      await eventually(() => finals(world().callbacks(m.meetingId)).length >= 4, `${where}: four finals`, 30_000);
      try {
        expectHeard(finals(world().callbacks(m.meetingId)), [
          { speaker: 'Alice Example', text: S1, source: 'audio' },
          { speaker: 'Bob Example', text: S2, source: 'audio' },
          { speaker: 'Alice Example', text: S3, source: 'audio' },
          { speaker: 'Unknown', text: S4, source: 'audio' },
        ]);
      } catch (err) {
        const heard = finals(world().callbacks(m.meetingId)).map((f) => [f.speaker, f.text]);
        throw new Error(`${where}: ${(err as Error).message}; heard ${JSON.stringify(heard)}`);
      }
      // The status of a live meeting counts the segments no tile showed.
      const unknownCounted = async () => {
        const { meetings } = await (await world().get('/meetings/status', m.token)).json();
        const live = meetings.find((s: { meetingId: string }) => s.meetingId === m.meetingId);
        return live?.transcription?.unknownSpeakerSegments;
      };
      await eventually(async () => (await unknownCounted()) === 1, `${where}: one Unknown segment counted`, 10_000);
      await stopAndCollect(world(), m.meetingId);
    });
  }
});

describe('whole stack: transcription budget and a service without a speech engine', function () {
  this.timeout(90_000);
  const env: Record<string, string> = { STT_MAX_AUDIO_SECONDS: '4' };
  useSpeechEngine(env);
  const world = useWorld(env);

  it('the budget spent ends audio transcription with one warning; the rest is marked, not lost', async () => {
    const m = await world().start('teams', { meeting: { lobby: false }, request: { transcription: 'audio' } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.screen === 'in_call');
    await m.sim.say('Alice Example', S1);
    await sleep(800);
    await m.sim.say('Alice Example', S2);
    await eventually(() => finals(world().callbacks(m.meetingId)).length >= 2, 'two finals', 30_000);
    const heard = await stopAndCollect(world(), m.meetingId);
    expect(heard.at(-1)!.untranscribed?.reason).to.equal('budget_exhausted');
    const warned = world()
      .callbacks(m.meetingId)
      .map(payloadOf)
      .filter((p) => p.warning === 'transcription_budget_exhausted');
    expect(warned).to.have.length(1);
  });
});

describe('whole stack: no speech engine configured', function () {
  this.timeout(60_000);
  const world = useWorld();

  it('transcription "audio" is refused with a 400 naming STT_BASE_URL; auto starts on captions', async () => {
    const url = world().sim.url('google_meet', world().newNativeId('google_meet'));
    const callbackUrl = `${world().rx.url}/hooks/notetaker`;
    const refused = await world().startRaw({ url, callbackUrl, transcription: 'audio' });
    expect(refused.status).to.equal(400);
    expect((await refused.json()).error).to.include('STT_BASE_URL');
    const bad = await world().startRaw({ url, callbackUrl, transcription: 'speech' });
    expect(bad.status).to.equal(400);
    expect((await bad.json()).error).to.include('transcription must be one of auto, captions, audio');
    const ready = await (await fetch(`${world().t.baseUrl}/readyz`)).json();
    expect(ready.audioTranscription).to.equal('off');
  });
});
