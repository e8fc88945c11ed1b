/**
 * Another bot is not company, whole stack in real Chromium: a meeting's other notetaker is
 * listed as a bot in the participant events (`bot`, `bots`), and once the last person leaves, the
 * bot leaves as alone although the other notetaker stays.
 */
import { expect } from 'chai';
import type { SimPlatform } from '../simulators/index.js';
import { payloadOf, useWorld } from './support/world.js';

const PLATFORMS: Array<{ platform: SimPlatform; label: string }> = [
  { platform: 'google_meet', label: 'Google Meet' },
  { platform: 'teams', label: 'Microsoft Teams' },
  { platform: 'zoom', label: 'Zoom' },
];
const ALONE_MS = 3_000;

describe('whole stack in real Chromium: another bot is not company', function () {
  this.timeout(60_000);
  const world = useWorld({ ALONE_TIMEOUT_MS: String(ALONE_MS) });

  for (const { platform, label } of PLATFORMS) {
    it(`${label}: the other notetaker is listed as a bot, and left with it alone the bot leaves (alone)`, async () => {
      const m = await world().start(platform, { meeting: { lobby: false } });
      m.sim.join('Alice Example');
      m.sim.join('Fireflies.ai Notetaker');
      await world().waitForStatus(m.meetingId, 'live');
      const joined = (name: string) =>
        world().waitForCallback(
          m.meetingId,
          (c) => c.eventType === 'participant_joined' && payloadOf(c).name === name,
          `${name} joined`,
        );
      const [alice, fireflies] = [
        payloadOf(await joined('Alice Example')),
        payloadOf(await joined('Fireflies.ai Notetaker')),
      ];
      expect(alice.bot).to.equal(false);
      expect(fireflies.bot).to.equal(true);
      expect(fireflies.bots).to.deep.equal(['Fireflies.ai Notetaker']);
      expect(fireflies.participantCount, 'everybody but this bot, as before').to.equal(2);

      m.sim.leave('Alice Example');
      const leftAt = Date.now();
      const left = await world().waitForCallback(
        m.meetingId,
        (c) => c.eventType === 'participant_left' && payloadOf(c).name === 'Alice Example',
        'Alice left',
      );
      expect(payloadOf(left)).to.include({ bot: false, participantCount: 1 });
      expect(payloadOf(left).bots).to.deep.equal(['Fireflies.ai Notetaker']);
      const ended = await world().waitForStatus(m.meetingId, 'ended', 20_000);
      expect(payloadOf(ended).reason).to.equal('alone');
      expect(Date.now() - leftAt).to.be.at.least(ALONE_MS - 500);
      expect(m.sim.truth().participants.find((p) => p.name === 'Fireflies.ai Notetaker')?.leftAt).to.equal(null);
    });
  }
});
