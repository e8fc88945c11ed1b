/**
 * A recorded meeting whose storage goes away for 30 s in the middle, on the whole stack in real
 * Chromium: recordings on a local S3 server behind a fault proxy (connections refused for 15 s,
 * then 503s for 15 s). The worker spools what storage does not take and sends it, in order, when
 * it answers again; a real speech engine (pocketsphinx, the test engine) then hears in the
 * downloaded file every sentence said before, during and after the outage, once each, in order.
 */
import { expect } from 'chai';
import {
  recordingsS3Env,
  startS3Endpoint,
  type S3Endpoint,
} from '../../services/transcript-store/test/support/s3-server.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { speechEngineForSuite } from '../support/speech-engine/index.js';
import { eventually, sleep } from '../support/wait.js';
import { payloadOf, useWorld } from './support/world.js';

const SAID = [
  'We should ship the release on Friday.',
  'The storage is down but I keep talking.',
  'Please write down every word of this part.',
  'Now the storage answers again.',
];

describe('whole stack in real Chromium: a recording through a storage outage', function () {
  this.timeout(180_000);
  const engine = speechEngineForSuite({ sentences: SAID });
  // Filled before the world starts (hooks run in the order they are declared).
  const env: Record<string, string> = {};
  let s3: S3Endpoint | undefined;
  let proxy: FaultProxy | undefined;
  before(async () => {
    s3 = await startS3Endpoint();
    proxy = await startFaultProxy({ port: Number(new URL(s3.connection.endpoint).port) });
    Object.assign(env, recordingsS3Env(s3.connection, proxy.url));
  });
  after(async () => {
    await proxy?.close();
    await s3?.stop();
  });
  const world = useWorld(env);

  it('Google Meet: 30 s of storage refused, then 503s: every sentence is in the file, once, in order', async () => {
    const m = await world().start('google_meet', { meeting: { lobby: false }, request: { recording: 'audio' } });
    m.sim.join('Alice Example');
    await world().waitForStatus(m.meetingId, 'live');
    await m.sim.waitForBot((b) => b.captionsOn);

    await m.sim.say('Alice Example', SAID[0]);
    await sleep(1000);
    const outage = Date.now();
    await proxy!.setMode({ kind: 'refuse' });
    await m.sim.say('Alice Example', SAID[1]);
    // The operator hears of it within seconds: the meeting's recording warning.
    await eventually(
      () =>
        world()
          .callbacks(m.meetingId)
          .some((c) => JSON.stringify(c.json).includes('recording_unavailable')),
      'recording_unavailable raised during the outage',
      20_000,
    );
    await sleep(Math.max(0, outage + 15_000 - Date.now()));
    await proxy!.setMode({ kind: 'unavailable' });
    await m.sim.say('Alice Example', SAID[2]);
    await sleep(Math.max(0, outage + 30_000 - Date.now()));
    await proxy!.setMode({ kind: 'pass' });
    await m.sim.say('Alice Example', SAID[3]);
    await sleep(1000);
    await world().stop(m.meetingId);
    await world().waitForStatus(m.meetingId, 'ended');

    const saved = payloadOf(
      await world().waitForCallback(m.meetingId, (c) => c.eventType === 'recording_saved', 'recording_saved', 60_000),
    );
    expect(saved.status, 'nothing of the meeting is missing').to.equal('saved');
    expect(saved.gaps).to.deep.equal([]);
    const res = await world().get(`/meetings/${m.meetingId}/recording`, m.token);
    expect(res.status).to.equal(200);
    const file = Buffer.from(await res.arrayBuffer());
    expect(file.length).to.equal(saved.bytes);

    const form = new FormData();
    form.set('file', new Blob([file], { type: 'audio/ogg' }), 'recording.ogg');
    form.set('model', 'whisper-1');
    const heard = await fetch(`${engine().url}/audio/transcriptions`, { method: 'POST', body: form });
    expect(heard.status).to.equal(200);
    const { text } = (await heard.json()) as { text: string };
    // Each sentence once, in the order said: a batch stored twice would be heard twice.
    let at = 0;
    for (const sentence of SAID) {
      const found = text.indexOf(sentence, at);
      expect(found, `"${sentence}" after what came before, in: ${text}`).to.be.at.least(0);
      expect(text.indexOf(sentence, found + 1), `"${sentence}" once, in: ${text}`).to.equal(-1);
      at = found + sentence.length;
    }
  });
});
