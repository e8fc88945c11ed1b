import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { answer, MemoryBroker, MemoryBus } from '@notetaker/bus';
import { createLogger } from '@notetaker/observability';
import {
  growWords,
  MEET_CAPTION_LANGUAGES,
  TEAMS_CAPTION_LANGUAGES,
  ZOOM_CAPTION_LANGUAGES,
  zoomChoicesOf,
  type SimPlatform,
} from '../../../../test/simulators/index.js';
import { languageName, matchLanguage } from '../../src/drivers/caption-language.js';
import { protocol } from '../../src/protocol.js';
import { CaptionWarnings } from '../../src/worker/caption-warnings.js';
import { driversOnSimulator, expectMatchesTruth, joinSimulated, RecordingListener, sleep } from './helpers.js';

describe('caption language: a BCP 47 tag to the label a platform offers', () => {
  it('names tags the way the platforms English UIs do', () => {
    expect(languageName('de-DE')).to.equal('German (Germany)');
    expect(languageName('de')).to.equal('German');
    expect(languageName('es-MX')).to.equal('Spanish (Mexico)');
    expect(languageName('en-US')).to.equal('English (United States)');
    expect(languageName('qqq')).to.equal(null);
  });

  it('takes the exact label, else the language without a region, else its usual region, else any region', () => {
    const picks: Array<[tag: string, offered: string[], label: string]> = [
      ['de-DE', TEAMS_CAPTION_LANGUAGES, 'German (Germany)'],
      ['de-DE', MEET_CAPTION_LANGUAGES, 'German'],
      ['de', TEAMS_CAPTION_LANGUAGES, 'German (Germany)'],
      ['es-MX', MEET_CAPTION_LANGUAGES, 'Spanish (Mexico)'],
      ['es-AR', MEET_CAPTION_LANGUAGES, 'Spanish (Spain)'],
      ['es', MEET_CAPTION_LANGUAGES, 'Spanish (Spain)'],
      ['pt', TEAMS_CAPTION_LANGUAGES, 'Portuguese (Brazil)'],
      ['ja-JP', TEAMS_CAPTION_LANGUAGES, 'Japanese (Japan)'],
      ['ja-JP', MEET_CAPTION_LANGUAGES, 'Japanese'],
      ['en-GB', MEET_CAPTION_LANGUAGES, 'English'],
      // Windows names Korea "Korea" where Intl says "South Korea"; Simplified Chinese is the usual script of zh-CN.
      ['ko-KR', TEAMS_CAPTION_LANGUAGES, 'Korean (Korea)'],
      ['zh-CN', TEAMS_CAPTION_LANGUAGES, 'Chinese (Simplified, China)'],
      ['zh-Hant-TW', TEAMS_CAPTION_LANGUAGES, 'Chinese (Traditional, Taiwan)'],
      // Zoom names most languages without a region, and French with one.
      ['de-DE', ZOOM_CAPTION_LANGUAGES, 'German'],
      ['fr', ZOOM_CAPTION_LANGUAGES, 'French (France)'],
      ['fr-CA', ZOOM_CAPTION_LANGUAGES, 'French (Canada)'],
      ['pt-BR', ZOOM_CAPTION_LANGUAGES, 'Portuguese'],
    ];
    for (const [tag, offered, label] of picks) expect(matchLanguage(tag, offered), tag).to.equal(label);
    // Offered both with another region and without one: the one without.
    expect(matchLanguage('es-MX', ['Spanish (Spain)', 'Spanish'])).to.equal('Spanish');
  });

  it('finds nothing for a language the platform does not offer, or a tag that names none', () => {
    expect(matchLanguage('tlh', MEET_CAPTION_LANGUAGES)).to.equal(null);
    expect(matchLanguage('tlh', TEAMS_CAPTION_LANGUAGES)).to.equal(null);
    expect(matchLanguage('ga-IE', TEAMS_CAPTION_LANGUAGES)).to.equal(null);
    expect(matchLanguage('qqq', MEET_CAPTION_LANGUAGES)).to.equal(null);
    expect(matchLanguage('not a tag', MEET_CAPTION_LANGUAGES)).to.equal(null);
  });
});

describe('caption language: the warning on the worker', () => {
  it('is logged in its own words and kept on the record, but is not blindness; a snapshot only when there is one', async () => {
    const bus = new MemoryBus({ broker: new MemoryBroker() });
    const stored: string[][] = [];
    answer(bus, protocol.warnings, ({ warnings }) => {
      stored.push(warnings);
      return {};
    });
    const out = new PassThrough();
    const lines: Array<{ msg: string; warning?: string }> = [];
    out.on('data', (chunk: Buffer) =>
      lines.push(
        ...chunk
          .toString()
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ),
    );
    const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'caption-language-'));
    const episodes: string[] = [];
    const warnings = new CaptionWarnings({
      bus,
      logger: createLogger({ service: 'test', destination: out }),
      workerId: 'w1',
      snapshotDir,
      onEpisode: (_platform, warning) => episodes.push(warning),
    });
    try {
      const seen =
        'tlh (Klingon) is not among the 22 caption languages offered (English, ...); captions stay in English';
      await warnings.changed('meeting_1', 'google_meet', {
        warning: 'caption_language_unavailable',
        raised: true,
        seen,
        snapshot: [],
      });
      expect(stored).to.deep.equal([['caption_language_unavailable']]);
      expect(warnings.counts()).to.deep.equal([], 'not counted among blind meetings');
      expect(episodes).to.deep.equal(['caption_language_unavailable']);
      expect(fs.readdirSync(snapshotDir)).to.deep.equal([], 'nothing to snapshot for a language not offered');
      await sleep(20);
      expect(lines.find((l) => l.warning === 'caption_language_unavailable')?.msg).to.equal(
        `the captions are not in the language asked for: ${seen}`,
      );
      // Blindness coming and going leaves it on the record.
      await warnings.changed('meeting_1', 'google_meet', {
        warning: 'captions_unreadable',
        raised: true,
        seen: 'x',
        snapshot: [{ depth: 0, tag: 'div', attrs: {}, children: 0 }],
      });
      expect(warnings.counts()).to.deep.equal([
        { platform: 'google_meet', warning: 'captions_unreadable', meetings: 1 },
      ]);
      await warnings.changed('meeting_1', 'google_meet', { warning: 'captions_unreadable', raised: false });
      expect(stored.at(-1)).to.deep.equal(['caption_language_unavailable']);
      // The setting not found: its toolbar snapshot is written.
      await warnings.changed('meeting_2', 'teams', {
        warning: 'caption_language_unavailable',
        raised: true,
        seen: 'the caption language settings could not be reached',
        snapshot: [{ depth: 0, tag: 'div', attrs: { role: 'toolbar' }, children: 0 }],
      });
      expect(
        fs.readdirSync(snapshotDir).filter((f) => f.includes('meeting_2_caption_language_unavailable')),
      ).to.have.length(1);
    } finally {
      await bus.close();
      fs.rmSync(snapshotDir, { recursive: true, force: true });
    }
  });
});

/**
 * In real Chromium against the simulator: with captions on, the bot selects the language asked
 * for in the platform's settings (Meet: More options -> Settings -> Captions -> Meeting language;
 * Teams: the captions' "..." -> Language settings -> Meeting spoken language -> Update; Zoom: the
 * captions menu -> Caption Settings or Translated Captions -> Speaking language -> Save), and
 * captions keep being read; a language the platform does not offer, or a setting the bot cannot
 * reach, raises caption_language_unavailable and changes nothing.
 */
describe('caption language in real Chromium', function () {
  this.timeout(60_000);
  const suite = driversOnSimulator({ meetCaptionIdleMs: 800, teamsCaptionIdleMs: 800, zoomCaptionIdleMs: 800 });
  let meetings = 0;

  const newId = (platform: SimPlatform) => {
    const n = ++meetings;
    if (platform === 'zoom') return String(86_100_000_000 + n);
    return platform === 'teams'
      ? `19:meeting_CaptionLanguage${n}Zq@thread.v2`
      : `lan-${'abcdefghijklmnopqrstuvwxyz'[n % 26]}cap-tns`;
  };

  const join = (platform: SimPlatform, id: string, language: string | null) =>
    joinSimulated(suite, platform, id, { meetingId: `meeting_language_${meetings}`, language });

  /** A turn said after the language was dealt with is read and finalised as it was said. */
  async function captionsFlow(id: string, listener: RecordingListener) {
    const meeting = suite.sim.meeting(id);
    await meeting.speak('Ana Ruiz', growWords('bueno vamos a empezar con el presupuesto'));
    await meeting.speak('Ben Ode', growWords('de acuerdo'));
    await listener.until(() => listener.segments.length === 2, 'two segments');
    expectMatchesTruth(listener, meeting.truth());
  }

  const PLATFORMS: Array<{ platform: SimPlatform; label: string; ask: string; picks: string; same: string }> = [
    { platform: 'google_meet', label: 'Google Meet', ask: 'es-MX', picks: 'Spanish (Mexico)', same: 'en-US' },
    { platform: 'teams', label: 'Teams', ask: 'de', picks: 'German (Germany)', same: 'en-US' },
    { platform: 'zoom', label: 'Zoom', ask: 'fr', picks: 'French (France)', same: 'en-US' },
  ];
  const OFFERED: Record<SimPlatform, string[]> = {
    google_meet: MEET_CAPTION_LANGUAGES,
    teams: TEAMS_CAPTION_LANGUAGES,
    zoom: ZOOM_CAPTION_LANGUAGES,
  };

  for (const { platform, label, ask, picks, same } of PLATFORMS) {
    describe(label, () => {
      it(`selects the language asked for (${ask} -> "${picks}") once captions are on, and captions keep coming`, async () => {
        const id = newId(platform);
        const meeting = suite.sim.meeting(id, { lobby: false });
        const { listener, driver } = await join(platform, id, ask);
        const bot = await meeting.waitForBot((b) => b.captionLanguage !== null);
        expect(bot.captionLanguage).to.equal(picks);
        expect(bot.captionsOn).to.equal(true);
        // UI pinned to English all the same: only the captions' language changed.
        expect(meeting.truth().pageLoads.every((load) => /^en-US/.test(load.acceptLanguage ?? ''))).to.equal(true);
        if (platform === 'google_meet') expect(meeting.truth().pageLoads[0].hl).to.equal('en');
        await captionsFlow(id, listener);
        expect(listener.warnings).to.deep.equal([]);
        expect(meeting.truth().bots[0].captionLanguage).to.equal(picks);
        await driver.leave();
      });

      it('raises caption_language_unavailable for a language the platform does not offer, and reads captions on', async () => {
        const id = newId(platform);
        const meeting = suite.sim.meeting(id, { lobby: false });
        const { listener, driver } = await join(platform, id, 'tlh');
        await listener.until(() => listener.warnings.length > 0, 'a warning');
        const [warning] = listener.warnings;
        expect(warning).to.deep.include({ warning: 'caption_language_unavailable', raised: true, snapshot: [] });
        const offered = OFFERED[platform];
        expect(warning.raised && warning.seen).to.match(
          new RegExp(`^tlh \\(Klingon\\) is not among the ${offered.length} caption languages offered \\(`),
        );
        expect(warning.raised && warning.seen).to.include(`captions stay in ${offered[0]}`);
        await captionsFlow(id, listener);
        // Raised once, never cleared, and the platform's default left as it was.
        expect(listener.warnings).to.have.length(1);
        expect(meeting.truth().bots[0].captionLanguage).to.equal(null);
        await driver.leave();
      });

      it('raises caption_language_unavailable, with a snapshot of the toolbar, when the setting cannot be found', async () => {
        const id = newId(platform);
        const meeting = suite.sim.meeting(id, { lobby: false, captionLanguageSettings: false });
        meeting.join('Ana Ruiz');
        const { listener, driver } = await join(platform, id, ask);
        await listener.until(() => listener.warnings.length > 0, 'a warning', 20_000);
        const [warning] = listener.warnings;
        expect(warning).to.deep.include({ warning: 'caption_language_unavailable', raised: true });
        if (!warning.raised) throw new Error('not raised');
        expect(warning.seen).to.match(/^the caption language settings could not be reached in \d+ s \(/);
        expect(warning.snapshot.length).to.be.greaterThan(3);
        expect(JSON.stringify(warning.snapshot)).to.not.include('Ana Ruiz');
        await captionsFlow(id, listener);
        expect(meeting.truth().bots[0].captionLanguage).to.equal(null);
        await driver.leave();
      });

      if (platform === 'zoom') {
        for (const languageSetting of ['settings', 'translated'] as const) {
          it(`finds the speaking language under ${languageSetting === 'settings' ? '"Caption Settings"' : '"Translated Captions", never the language translated to'}`, async () => {
            const id = newId(platform);
            let markupSeed = 6100 + meetings * 11;
            while (zoomChoicesOf(markupSeed).languageSetting !== languageSetting) markupSeed++;
            const meeting = suite.sim.meeting(id, { lobby: false, markupSeed });
            const { listener, driver } = await join(platform, id, 'de-DE');
            const bot = await meeting.waitForBot((b) => b.captionLanguage !== null);
            expect(bot.captionLanguage).to.equal('German');
            expect(meeting.truth().pageLoads.at(-1)?.markupSeed).to.equal(markupSeed);
            await captionsFlow(id, listener);
            expect(listener.warnings).to.deep.equal([]);
            await driver.leave();
          });
        }
      }

      it(`leaves the setting alone with no language, or with the one already selected (${same})`, async () => {
        const unasked = newId(platform);
        const already = newId(platform);
        const meetingUnasked = suite.sim.meeting(unasked, { lobby: false });
        const meetingAlready = suite.sim.meeting(already, { lobby: false });
        const a = await join(platform, unasked, null);
        const b = await join(platform, already, same);
        await meetingUnasked.waitForBot((bot) => bot.captionsOn);
        await meetingAlready.waitForBot((bot) => bot.captionsOn);
        // Time for the bot with a language to open the setting, see its language selected and close it.
        await sleep(4_000);
        await captionsFlow(unasked, a.listener);
        await captionsFlow(already, b.listener);
        expect(meetingUnasked.truth().bots[0].captionLanguage).to.equal(null);
        expect(meetingAlready.truth().bots[0].captionLanguage).to.equal(null);
        expect([...a.listener.warnings, ...b.listener.warnings]).to.deep.equal([]);
        await Promise.all([a.driver.leave(), b.driver.leave()]);
      });
    });
  }
});
