import { seedWithAudio } from '../simulators/index.js';
import { eventually } from '../support/wait.js';
import { finals, SENTENCES, useSpeechEngine } from './support/transcription.js';
import { payloadOf, useWorld } from './support/world.js';

const [S1, S2] = SENTENCES;

describe('repro: last utterance', function () {
  this.timeout(120_000);
  const env: Record<string, string> = { STT_TIMEOUT_MS: '2500' };
  useSpeechEngine(env);
  const world = useWorld(env);

  for (const platform of ['teams', 'google_meet', 'zoom'] as const)
  for (const how of ['nothing'] as const) {
    it(`${platform}: last words then ${how}`, async () => {
      const seed = seedWithAudio(platform, { idle: 'paused' }, Math.floor(Math.random() * 1e9));
      const m = await world().start(platform, { meeting: { lobby: false, captionsAllowed: false, markupSeed: seed } });
      m.sim.join('Alice Example');
      m.sim.join('Bob Example');
      await world().waitForStatus(m.meetingId, 'live');
      await m.sim.waitForBot((b) => b.screen === 'in_call');
      await eventually(
        () => world().callbacks(m.meetingId).map(payloadOf).some((p) => p.warning === 'transcription_source_changed'),
        'switch',
        15_000,
      );
      await m.sim.say('Bob Example', S2);
      const ok1 = await eventually(() => finals(world().callbacks(m.meetingId)).length >= 1, 'final 1', 10_000).then(() => true, () => false);
      await m.sim.say('Alice Example', S1);
      const t0 = Date.now();
      const ok = await eventually(() => finals(world().callbacks(m.meetingId)).length >= 2, 'final 2', 10_000).then(() => true, () => false);
      const cbs = world().callbacks(m.meetingId);
      console.log(how, ok1, ok ? `final after ${Date.now() - t0} ms` : 'NO FINAL', JSON.stringify(m.sim.truth().pageLoads.map((p) => p.audio)), JSON.stringify(m.sim.truth().audioEvents.map((e) => e.event)),
        cbs.filter((c) => ['caption_partial', 'segment_finalized'].includes(String(c.eventType))).map((c) => `${c.eventType}:${JSON.stringify(payloadOf(c).text)}`).join(' | '));
      await world().stop(m.meetingId);
      await world().waitForStatus(m.meetingId, 'ended', 40_000);
      console.log(JSON.stringify(finals(world().callbacks(m.meetingId)).map((f) => f.text)));
    });
  }
});
