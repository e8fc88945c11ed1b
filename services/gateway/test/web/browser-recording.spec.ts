/**
 * The recording player in real Chromium against the real stack (scripted meeting platform): a
 * recorded meeting's page plays its audio (a real Ogg Opus file of silence, as the bots write
 * them) beside the transcript, and a segment clicked, or chosen by keyboard, seeks the player to
 * the segment's offset in the file: its timestamp minus the recording's start. No script error and
 * no CSP violation on the way.
 */
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { OggOpusWriter, SILENT_PACKET, SILENT_PACKET_SAMPLES } from '../../../meeting-session/src/recording/ogg.js';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { clickAndWait, fill, fitsPhone, pathOf, screenshot, waitForText } from './support/browser.js';
import { chromiumOnStack } from './support/chromium-stack.js';
import { OWNER } from './support/web-client.js';

const STARTED_AT = Date.parse('2030-01-02T03:04:05.000Z');
const at = (seconds: number) => new Date(STARTED_AT + seconds * 1000).toISOString();

/** A minute of silence in Ogg Opus, page by page as the bots' recorder writes it. */
function silentMinute(): Buffer {
  const writer = new OggOpusWriter(1234);
  const packets = Array.from({ length: 3000 }, () => ({ bytes: SILENT_PACKET, samples: SILENT_PACKET_SAMPLES }));
  return Buffer.concat([writer.headers(), writer.pages(packets)]);
}

describe('web application in Chromium: the recording player', function () {
  this.timeout(60_000);
  const platform = scriptedDriverFactory();
  const consoleErrors: string[] = [];
  const web = chromiumOnStack({ stack: { driverFactory: platform }, consoleErrors, owner: OWNER });

  it('plays a recorded meeting beside its transcript, and a segment seeks the player to its offset', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/meetings`);
    await fill(page, '#f-url', 'https://meet.google.com/rec-ordi-ngx');
    await fill(page, '#f-title', 'Recorded review');
    await clickAndWait(page, 'form[action="/meetings"] button[type=submit]');
    const meetingId = pathOf(page).split('/').pop()!;
    const meeting = await platform.meeting(meetingId);
    await waitForText(page, '#meeting-status', 'Live');
    meeting.segment({ speaker: 'Alice Example', text: 'Ten seconds in.', timestamp: at(10) });
    meeting.segment({ speaker: 'Bob Example', text: 'Half a minute in.', timestamp: at(30) });
    await waitForText(page, '#segments', 'Half a minute in.');
    // The bot's audio, as its worker stores it.
    const file = silentMinute();
    await call(t.stack.bus, routes.recordings.append, {
      meetingId,
      startedAt: at(0),
      offset: 0,
      data: file.toString('base64'),
      durationMs: 60_000,
    });
    await clickAndWait(page, '#stop-form button');
    await waitForText(page, '#meeting-status', 'Ended');
    await call(t.stack.bus, routes.recordings.finish, { meetingId });

    await page.goto(`${t.baseUrl}/meetings/${meetingId}`);
    await page.waitForSelector('#recording-player');
    // preload="metadata": Chromium reads the file's length through the gateway (ranges) before any play.
    await page.waitForFunction(
      () => Number.isFinite((document.getElementById('recording-player') as HTMLAudioElement).duration),
      { timeout: 15_000 },
    );
    const duration = await page.$eval('#recording-player', (el) => (el as HTMLAudioElement).duration);
    expect(duration).to.be.closeTo(60, 0.5);
    await screenshot(page, 'meeting-recording');
    expect(await fitsPhone(page, 'meeting-recording'), 'the player fits 360 px').to.equal(true);

    const position = () =>
      page.$eval('#recording-player', (el) => {
        const player = el as HTMLAudioElement;
        player.pause();
        return player.currentTime;
      });
    await page.click('#segments li:nth-child(2) p');
    expect(await position()).to.be.within(29.5, 31.5);
    expect(await page.$eval('#segments li:nth-child(2)', (li) => li.classList.contains('playing'))).to.equal(true);
    // By keyboard: a segment is focusable, Enter plays from it.
    await page.focus('#segments li:nth-child(1)');
    await page.keyboard.press('Enter');
    expect(await position()).to.be.within(9.5, 11.5);
    expect(await page.$eval('#segments li:nth-child(2)', (li) => li.classList.contains('playing'))).to.equal(false);

    expect(consoleErrors).to.deep.equal([]);
  });

  it('shows no player on the page of a meeting without a recording', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/meetings`);
    await fill(page, '#f-url', 'https://meet.google.com/nor-ecor-din');
    await clickAndWait(page, 'form[action="/meetings"] button[type=submit]');
    const meetingId = pathOf(page).split('/').pop()!;
    const meeting = await platform.meeting(meetingId);
    await waitForText(page, '#meeting-status', 'Live');
    meeting.segment({ speaker: 'Alice Example', text: 'Not recorded.' });
    await waitForText(page, '#segments', 'Not recorded.');
    expect(await page.$('#recording-player')).to.equal(null);
    expect(await page.$eval('#segments li', (li) => (li as HTMLElement).tabIndex)).to.equal(-1);
    await clickAndWait(page, '#stop-form button');
    expect(consoleErrors).to.deep.equal([]);
  });
});
