/**
 * The simulated meetings' sound, heard the way the bot is to record it: the level of every remote
 * audio track the page receives, on the audio thread (remote-audio-levels.ts). Participants say()
 * sentences; the levels must show sound in each utterance's window of the ground truth on exactly
 * one track, and silence on every track between them. Meet puts different speakers on different
 * tracks, Teams everybody on one. Each page load draws how it receives the audio (tracks at join
 * or late, a replaced track, a renegotiation, re-created <audio> elements): every platform runs a
 * page per variation, side by side, each in its own meeting. SIM_SEED=<seed> replays one page load.
 */
import { expect } from 'chai';
import {
  audioOf,
  growWords,
  seedWithAudio,
  teamsChoicesOf,
  type AudioVariation,
  type GroundTruth,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import { enterCall, pagesOnSimulator, SeededPage, seededMeetingId, seedPerVariant, withPages } from './call-page.js';
import { skipWithoutEspeak } from './helpers.js';
import { BLOCK_MS, count, heardOn, measureRemoteAudio, peak } from './remote-audio-levels.js';
import { eventually, sleep } from '../../../../test/support/wait.js';

/** A page per variation and platform; the other draws (markup, element placement) vary by run. */
const VARIATIONS: Array<Pick<AudioVariation, 'tracks' | 'change'>> = [
  { tracks: 'atJoin', change: 'none' },
  { tracks: 'late', change: 'replaceTrack' },
  { tracks: 'atJoin', change: 'renegotiate' },
  { tracks: 'late', change: 'recreateElement' },
];

const SCRIPT: Array<[speaker: string, text: string]> = [
  ['Alice Example', 'We should ship the new release on Friday.'],
  ['Bob Jones', 'I think we need one more day of testing.'],
  ['Alice Example', 'Then Monday it is.'],
];
const GAP_MS = 2000;

/** RMS levels (of 1.0): speech is well above SOUND, silence (decoded digital zeros) below SILENCE. */
const SOUND = 0.01;
const SILENCE = 0.001;
/**
 * The network and the jitter buffer delay what a page receives, more so on a busy machine (a
 * stall stretches the buffer); sound may run on this long after its window.
 */
const TAIL_MS = 1500;
/** A page's sound may begin a little before the start it reports: silence is asked for until this long before. */
const EARLY_MS = 250;

describe('simulated meetings: speech over WebRTC in the page', function () {
  // About 20 s a platform; more on a machine busy with other work, whose pages start late.
  this.timeout(90_000);
  skipWithoutEspeak();
  const suite = pagesOnSimulator();

  for (const platform of ['google_meet', 'teams'] as const) {
    const name = platform === 'teams' ? 'Teams' : 'Meet';
    it(`${name}: each utterance is heard in its window on one track, silence between; every variation delivers`, async () => {
      const seeds = seedPerVariant(VARIATIONS, (wanted, from) => seedWithAudio(platform, wanted, from));
      await withPages(suite.browser, seeds.length, async (pages) => {
        const calls = seeds.map((seed, i) => {
          const meeting = suite.sim.meeting(seededMeetingId(platform, seed, 'audio'), {
            lobby: false,
            markupSeed: seed,
          });
          meeting.join('Alice Example');
          meeting.join('Bob Jones');
          return new SeededPage(platform, seed, meeting, pages[i]);
        });
        // Said before any bot is in the call: recorded, never played, not even to pages that join during it.
        const unheard = calls[0].meeting.say('Carol White', 'Nobody is listening yet.', { captions: false });
        await eventually(() => calls[0].meeting.truth().utterances.length === 1, 'Carol to speak');
        await Promise.all(
          calls.map(async (c) => {
            await measureRemoteAudio(c.page);
            c.call = await enterCall(c.page, platform, suite.sim, c.meeting.id);
          }),
        );
        await unheard;

        // The same script in every meeting at once, each next line GAP_MS after the page played
        // the last one out (a page on a busy machine may start late).
        await Promise.all(
          calls.map(async (c) => {
            for (const [i, [speaker, text]] of SCRIPT.entries()) {
              const said = await c.meeting.say(speaker, text);
              await playedOut(c, said.id);
              // The page's change (after its first utterance) done before the next, which it must carry.
              if (i === 0) await changed(c);
              await sleep(GAP_MS);
            }
          }),
        );

        for (const c of calls) await expectHeard(c, platform);
        const early = calls[0].meeting.truth().utterances[0];
        expect(early.speaker).to.equal('Carol White');
        expect(early.audience, 'said with nobody in the call').to.deep.equal([]);
        expect(early.plays).to.deep.equal([]);
      });
    });
  }

  async function expectHeard(c: SeededPage, platform: SimPlatform): Promise<void> {
    const truth: GroundTruth = c.meeting.truth();
    const guest = truth.bots[0].guestId;
    const variation = audioOf(platform, c.seed);
    expect(truth.pageLoads.at(-1)?.audio, c.label).to.deep.equal(variation);
    const said = truth.utterances.filter((u) => u.audience.includes(guest));
    expect(
      said.map((u) => [u.speaker, u.text]),
      `${c.label}: utterances heard`,
    ).to.deep.equal(SCRIPT);
    const heard = (await heardOn(c.page)).tracks;
    // Teams: the mix on its mainAudio track; a page load that draws a redundant copy hears it beside the mix.
    const tracks = platform === 'teams' ? heard.filter((t) => t.id.startsWith('mainAudio-')) : heard;
    const copies = heard.filter((t) => !tracks.includes(t));
    const redundant = platform === 'teams' && teamsChoicesOf(c.seed).mixTracks === 'redundant';
    const late = said.map((u) => u.plays.find((p) => p.guestId === guest)?.lateMs);
    const where = (what: string) =>
      `${c.label}: ${what}; ${tracks.length} tracks; events ${events(truth, guest)}; late by ${late} ms`;

    // The page played each utterance once, from when it says (the scheduled time unless it was busy).
    const windows = said.map((u) => {
      expect(
        u.plays.map((p) => p.guestId),
        where(`"${u.text}" played once`),
      ).to.deep.equal([guest]);
      return { u, start: u.plays[0].startedAt, end: u.plays[0].startedAt + u.durationMs };
    });

    // Sound in each window (delayed by up to TAIL_MS) for at least half its length, on exactly one
    // track; every other track silent then.
    const carrier = windows.map(({ u, start, end }) => {
      const loud = tracks.map(
        (t) => (count(t.levels, start, end + TAIL_MS, (rms) => rms > SOUND) * BLOCK_MS) / u.durationMs,
      );
      const carrying = loud.flatMap((fraction, i) => (fraction >= 0.5 ? [i] : []));
      expect(carrying, where(`"${u.text}" on one track (loud shares ${loud.map((f) => f.toFixed(2))})`)).to.have.length(
        1,
      );
      const others = tracks.filter((_, i) => i !== carrying[0]);
      for (const t of others)
        expect(peak(t.levels, start, end + TAIL_MS), where(`"${u.text}" only on its track`)).to.be.below(SILENCE);
      const copied = copies.filter((t) => count(t.levels, start, end + TAIL_MS, (rms) => rms > SOUND) > 0);
      expect(copied.length > 0, where(`"${u.text}" on the redundant copy too`)).to.equal(redundant);
      return carrying[0];
    });

    // Silence on every track between the utterances and after the last (nothing replayed, nothing looped).
    const quiet: Array<[number, number]> = windows.map(({ end }, i) => [
      end + TAIL_MS,
      windows[i + 1] ? windows[i + 1].start - EARLY_MS : Date.now() - 50,
    ]);
    quiet.unshift([Math.min(...tracks.map((t) => t.addedAt)), windows[0].start - EARLY_MS]);
    for (const [from, to] of quiet)
      for (const t of heard)
        expect(peak(t.levels, from, to), where(`silence from ${from} to ${to} (${to - from} ms)`)).to.be.below(SILENCE);

    // Meet: a speaker per track (Alice keeps hers); Teams: everybody on one track.
    const renegotiated = variation.change === 'renegotiate';
    if (platform === 'google_meet') {
      expect(carrier[0], where('Alice and Bob on different tracks')).to.not.equal(carrier[1]);
      expect(carrier[1], where('Bob and Alice on different tracks')).to.not.equal(carrier[2]);
      if (!renegotiated) expect(carrier[2], where('Alice again on her track')).to.equal(carrier[0]);
    } else {
      expect(carrier[2], where('Bob and Alice on the one track')).to.equal(carrier[1]);
      if (!renegotiated) expect(carrier[0], where('everybody on the one track')).to.equal(carrier[1]);
      if (!renegotiated) expect(tracks, where('one track')).to.have.length(1);
    }

    // The drawn variation happened where it says: tracks at join or with the first utterance,
    // the change between the first and second utterance.
    const audioEvents = truth.audioEvents.filter((e) => e.guestId === guest);
    const added = audioEvents.filter((e) => e.event === 'tracks_added');
    if (variation.tracks === 'atJoin') expect(added.length, where('tracks at join')).to.equal(1);
    else expect(added[0]?.at, where('first track late')).to.be.greaterThan(said[0].startedAt - 1000);
    const change = CHANGE_EVENTS[variation.change];
    if (change) {
      const at = audioEvents.find((e) => e.event === change)?.at ?? 0;
      expect(at, where(`${change} after the first utterance`)).to.be.within(windows[0].end, windows[1].start);
    }
    expect(
      audioEvents.filter((e) => ['failed', 'missed', 'audio_blocked'].includes(e.event)),
      where('no audio failures'),
    ).to.deep.equal([]);

    // One call gave the captions too, word by word within the utterance's window.
    const segments = truth.segments.filter((s) => said.some((u) => u.captionBlockId === s.blockId));
    expect(segments.map((s) => [s.speaker, s.text])).to.deep.equal(SCRIPT);
    segments.forEach((s, i) => {
      expect(s.history, where('captions grow word by word')).to.deep.equal(growWords(SCRIPT[i][1]));
      expect(Date.parse(s.startedAt), where('captions start with the sound')).to.be.within(
        said[i].startedAt,
        said[i].startedAt + said[i].durationMs,
      );
    });
    const read = c.call.reports.at(-1)?.map(({ speaker, text }) => [speaker, text]);
    expect(read, where('the page showed the captions')).to.deep.include.members(SCRIPT);
  }
});

/**
 * Resolves once every page the utterance was for has played it to its end; fails on a page that
 * could not. Polls gently: the simulator serving the pages shares this process.
 */
async function playedOut(c: SeededPage, id: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; await sleep(50)) {
    const truth = c.meeting.truth();
    const u = truth.utterances.find((x) => x.id === id)!;
    const audio = truth.bots.map((bot) => `${bot.screen}; events ${events(truth, bot.guestId)}`).join(' | ');
    const trouble = truth.audioEvents.filter((e) => ['missed', 'failed'].includes(e.event));
    if (trouble.length > 0) throw new Error(`${c.label}: "${u.text}" not played; ${audio}`);
    if (u.plays.length >= u.audience.length)
      return sleep(Math.max(0, ...u.plays.map((p) => p.startedAt + u.durationMs - Date.now())));
    if (Date.now() > deadline) throw new Error(`${c.label}: "${u.text}" not played in ${timeoutMs} ms; ${audio}`);
  }
}

const CHANGE_EVENTS = {
  none: null,
  replaceTrack: 'track_replaced',
  renegotiate: 'renegotiated',
  recreateElement: 'element_recreated',
} as const;

/** Resolves once the page made the change its load drew (a renegotiation may take a while on a busy machine). */
async function changed(c: SeededPage, timeoutMs = 30_000): Promise<void> {
  const event = CHANGE_EVENTS[audioOf(c.platform, c.seed).change];
  if (!event) return;
  await eventually(
    () => c.meeting.truth().audioEvents.some((e) => e.event === event),
    `${c.label}: the page's ${event}`,
    timeoutMs,
  );
}

function events(truth: GroundTruth, guest: string): string {
  return truth.audioEvents
    .filter((e) => e.guestId === guest)
    .map((e) => `${e.event}${e.detail ? ` (${e.detail})` : ''}`)
    .join(', ');
}
