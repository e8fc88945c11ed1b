import { expect } from 'chai';
import https from 'node:https';
import { startSimulator, type GroundTruth, type Simulator } from '../../../../test/simulators/index.js';
import { createDriverFactory } from '../../src/drivers/index.js';
import { RecordingListener } from './helpers.js';

/** The simulator scripted over HTTP, as a test in another process would: a Meet join end to end. */
describe('Simulator control API', function () {
  this.timeout(30_000);
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator();
  });
  after(async () => {
    await sim?.close();
  });

  function control(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const request = https.request(
        `${sim.controlUrl}/${path}`,
        { method, rejectUnauthorized: false, headers: { 'content-type': 'application/json' } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            if (response.statusCode !== 200) reject(new Error(`${method} ${path}: ${JSON.stringify(parsed)}`));
            else resolve(parsed);
          });
        },
      );
      request.on('error', reject);
      request.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  it('configures, admits, adds participants (one labelled), presents, plays a turn, refuses and allows captions, returns the ground truth', async () => {
    const code = 'ctl-http-api';
    const meeting = `meetings/${encodeURIComponent(code)}`;
    await control('POST', meeting, { lobby: true });
    const factory = createDriverFactory({
      extraArgs: sim.hostResolverRules(),
      meetCaptionIdleMs: 600,
      pollIntervalMs: 150,
    });
    const listener = new RecordingListener();
    const driver = factory.create({
      platform: 'google_meet',
      url: sim.url('google_meet', code),
      meetingId: 'meeting_ctl',
      displayName: 'Notetaker',
    });
    try {
      await driver.start(listener);
      await listener.until(() => listener.events.includes('lobby'), 'lobby');
      await control('POST', `${meeting}/admit`);
      await control('POST', `${meeting}/participants`, { name: 'Dana Cruz' });
      await listener.until(() => listener.roster?.join() === 'Dana Cruz', 'Dana in the roster');
      await sim.meeting(code).waitForBot((bot) => bot.captionsOn);
      const { turn } = await control('POST', `${meeting}/speak`, {
        speaker: 'Dana Cruz',
        steps: ['Over', 'Over HTTP', 'Over HTTP too'],
        stepMs: 50,
      });
      await control('POST', `${meeting}/turns/${turn}`, { show: 'Over HTTP too.' });
      await listener.until(() => listener.segments.length === 1, 'a segment');
      const truth = (await control('GET', `${meeting}/truth`)) as unknown as GroundTruth;
      expect(truth.segments.map((s) => [s.speaker, s.text])).to.deep.equal([['Dana Cruz', 'Over HTTP too.']]);
      expect(listener.segments.map((s) => [s.speaker, s.text])).to.deep.equal([['Dana Cruz', 'Over HTTP too.']]);
      expect(truth.bots.map((bot) => [bot.name, bot.screen])).to.deep.equal([['Notetaker', 'in_call']]);

      // A labelled person and a presentation: one more person, still by name; a bad label is refused.
      await control('POST', `${meeting}/participants`, { name: 'Eli Moss', suffix: 'External' });
      await control('POST', `${meeting}/present`, { name: 'Dana Cruz' });
      await listener.until(() => listener.roster?.join() === 'Dana Cruz,Eli Moss', 'Eli in the roster, Dana once');
      const people = ((await control('GET', `${meeting}/truth`)) as unknown as GroundTruth).participants;
      expect(people.map((p) => [p.name, p.suffix, p.presenting])).to.deep.equal([
        ['Dana Cruz', null, true],
        ['Eli Moss', 'External', false],
      ]);
      const refused = await control('POST', `${meeting}/participants`, { name: 'Fay', suffix: 'VIP' }).catch((e) => e);
      expect(String(refused)).to.contain('suffix must be Guest, External or Unverified');

      // The host turns captions off, then on again: off on the page, and on again by the bot.
      await control('POST', `${meeting}/captions-allowed`, { allowed: false });
      await sim.meeting(code).waitForBot((bot) => !bot.captionsOn);
      const bad = await control('POST', `${meeting}/captions-allowed`, { allowed: 'no' }).catch((e) => e);
      expect(String(bad)).to.contain('allowed must be true or false');
      await control('POST', `${meeting}/captions-allowed`, { allowed: true });
      await sim.meeting(code).waitForBot((bot) => bot.captionsOn);
    } finally {
      await driver.leave();
      await factory.close();
    }
  });
});
