/**
 * The page's PCM taps for transcription, in real Chromium against the simulators: a driver asked
 * to transcribe hands over 16 kHz PCM per remote track, every 100 ms, loud in each utterance's
 * window; on Meet two people talking at once arrive on two tracks, on Teams on the one mixed track
 * (its redundant copy beside it, where a page load has one, left out).
 * It also reports how the tiles look (who speaks is learned from it) and whether captions are on.
 */
import { expect } from 'chai';
import type { PcmChunk } from '../../src/recording/page-capture.js';
import { seedWithChoice } from '../../../../test/simulators/index.js';
import { driversOnSimulator, joinSimulated, sleep } from './helpers.js';

/** RMS (of 32768) of a track's chunks between two instants. */
function loudness(chunks: PcmChunk[], track: string, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (const chunk of chunks) {
    if (chunk.track !== track || chunk.endMs < from || chunk.endMs - 200 > to) continue;
    const bytes = Buffer.from(chunk.data, 'base64');
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    for (const s of samples) sum += s * s;
    n += samples.length;
  }
  return n === 0 ? 0 : Math.sqrt(sum / n);
}

describe('drivers: the PCM taps for transcription (simulators)', function () {
  this.timeout(90_000);
  const suite = driversOnSimulator();

  for (const platform of ['google_meet', 'teams'] as const) {
    it(`${platform}: each track's 16 kHz PCM, loud where each person spoke, and how the tiles look`, async () => {
      const id = platform === 'google_meet' ? 'pcm-abcd-efg' : `19:meeting_pcm${Date.now()}@thread.v2`;
      const meeting = suite.sim.meeting(platform === 'google_meet' ? 'pcm-abcd-efg' : id, { lobby: false });
      meeting.join('Alice Example');
      meeting.join('Bob Jones');
      const { listener, driver } = await joinSimulated(suite, platform, id, { transcribeAudio: true });
      try {
        await listener.until(() => listener.events.includes('admitted'), 'admitted');
        // A track nobody sends on is muted and costs nothing: PCM flows once someone speaks.
        await listener.until(() => listener.captionStates.at(-1) === true, 'captions on', 20_000);
        const alice = meeting.say('Alice Example', 'We should ship the new release on Friday.');
        await sleep(1500);
        const [said, saidToo] = await Promise.all([alice, meeting.say('Bob Jones', 'I think we need one more day.')]);
        await sleep(1500);

        const chunks = listener.pcmChunks;
        const sizes = new Set(chunks.map((c) => Buffer.from(c.data, 'base64').length));
        expect([...sizes], '100 ms of 16-bit samples at 16 kHz').to.deep.equal([3200]);
        const tracks = [...new Set(chunks.map((c) => c.track))];
        const loudest = (from: number, to: number) =>
          tracks.map((t) => [t, loudness(chunks, t, from, to)] as const).sort((a, b) => b[1] - a[1])[0];
        const [aliceTrack, aliceLevel] = loudest(said.startedAt + 200, said.startedAt + 1300);
        const [bobTrack, bobLevel] = loudest(saidToo.startedAt + 800, saidToo.startedAt + saidToo.durationMs);
        expect(aliceLevel).to.be.greaterThan(300);
        expect(bobLevel).to.be.greaterThan(300);
        // While Alice speaks, her track's chunks follow each other on the audio clock, and their
        // wall-clock times stay within the message latency of when they were heard.
        const hers = chunks.filter(
          (c) => c.track === aliceTrack && c.endMs > said.startedAt && c.endMs < said.startedAt + said.durationMs,
        );
        expect(hers.length).to.be.greaterThan(3);
        hers.slice(1).forEach((c, i) => expect(c.frame, 'back to back').to.equal(hers[i].frame + 1600));
        const late = hers.map((c) => c.endMs - hers[0].endMs - ((c.frame - hers[0].frame) * 1000) / 16000);
        expect(Math.max(...late.map(Math.abs)), 'ms off the audio clock').to.be.lessThan(250);
        if (platform === 'google_meet') expect(bobTrack, 'Meet: a track per speaker').to.not.equal(aliceTrack);
        else expect(bobTrack, 'Teams: one mixed track').to.equal(aliceTrack);

        // Each speaker's tile changed its look while they spoke (who speaks is learned from that).
        const looksOf = (name: string) =>
          new Set(listener.lookChanges.map((c) => JSON.stringify(c.tiles.find((t) => t.name === name)?.look)));
        expect(looksOf('Alice Example').size).to.be.greaterThan(1);
        expect(looksOf('Bob Jones').size).to.be.greaterThan(1);
        expect(listener.captionStates.at(-1)).to.equal(true);
      } finally {
        await driver.leave();
      }
    });
  }

  it('teams: a redundant track beside the mix, offered before or after it: only the mix (mainAudio-...) is taken', async () => {
    // A seed of each parity: the page offers the copy first on odd seeds.
    const redundant = (from: number) => seedWithChoice('teams', 'mixTracks', 'redundant', from);
    const first = redundant(5100);
    let second = redundant(first + 1);
    while (second % 2 === first % 2) second = redundant(second + 1);
    const runs = await Promise.all(
      [first, second].map(async (markupSeed) => {
        const id = `19:meeting_redundant${markupSeed}@thread.v2`;
        const meeting = suite.sim.meeting(id, { lobby: false, markupSeed });
        meeting.join('Alice Example');
        const joined = await joinSimulated(suite, 'teams', id, { transcribeAudio: true, recordAudio: true });
        return { markupSeed, meeting, ...joined };
      }),
    );
    try {
      for (const { markupSeed, meeting, listener } of runs) {
        await listener.until(() => listener.captionStates.at(-1) === true, `${markupSeed}: captions on`, 20_000);
        const said = await meeting.say('Alice Example', 'We should ship the new release on Friday.');
        await sleep(1500);
        const guest = meeting.truth().bots[0].guestId;
        const added = meeting.truth().audioEvents.filter((e) => e.guestId === guest && e.event === 'tracks_added');
        expect(added.map((e) => e.detail).join(), `${markupSeed}: the page got the copy too`).to.include('redundant');
        const tracks = [...new Set(listener.pcmChunks.map((c) => c.track))];
        expect(tracks, `${markupSeed}: one track tapped`).to.have.length(1);
        expect(tracks[0], markupSeed.toString()).to.match(/^mainAudio-/);
        expect(loudness(listener.pcmChunks, tracks[0], said.startedAt + 200, said.startedAt + 1300)).to.be.greaterThan(
          300,
        );
        expect(listener.audioBatches.length, `${markupSeed}: recorded`).to.be.greaterThan(0);
      }
    } finally {
      await Promise.all(runs.map(({ driver }) => driver.leave()));
    }
  });
});
