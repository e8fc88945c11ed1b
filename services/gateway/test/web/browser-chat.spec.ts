/**
 * The meeting chat on the live meeting page in real Chromium (issue #51), against the real stack
 * with a scripted platform: people's messages appear live, once each, as text (never markup); the
 * chat box posts as the bot, and the bot's message shows as its own; the page fits a phone.
 */
import { expect } from 'chai';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { clickAndWait, fill, fitsPhone, pathOf, text, unlabelledControls, waitForText } from './support/browser.js';
import { chromiumOnStack } from './support/chromium-stack.js';
import { OWNER } from './support/web-client.js';

describe('web application in Chromium: the meeting chat', function () {
  this.timeout(60_000);
  const platform = scriptedDriverFactory();
  const consoleErrors: string[] = [];
  const web = chromiumOnStack({ stack: { driverFactory: platform }, consoleErrors, owner: OWNER });

  it('shows the chat live and posts from the chat box as the bot', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/meetings`);
    await fill(page, '#f-url', 'https://meet.google.com/chb-oxte-stx');
    await fill(page, '#f-title', 'Chat in the browser');
    await fill(page, '#f-announcement', 'Notetaker transcribes this call.');
    await clickAndWait(page, 'form[action="/meetings"] button[type=submit]');
    const meetingId = pathOf(page).split('/').pop()!;
    const meeting = await platform.meeting(meetingId);
    await waitForText(page, '#meeting-status', 'Live');
    await waitForText(page, '#chat-messages', 'Notetaker transcribes this call.');

    meeting.chat('Alice Example', 'Agenda: <b>budget</b> <img src=x onerror="window.pwned=1">');
    await waitForText(page, '#chat-messages', 'Agenda:');
    expect(await page.$$eval('#chat-messages img, #chat-messages b', (els) => els.length)).to.equal(0);

    await fill(page, '#chat-text', 'The slides are in the drive.');
    await clickAndWait(page, '#chat-form button[type=submit]');
    expect(await text(page, 'main')).to.contain('The message is on its way to the meeting chat.');
    await waitForText(page, '#chat-messages', 'The slides are in the drive.');
    expect(meeting.posted).to.deep.equal(['Notetaker transcribes this call.', 'The slides are in the drive.']);
    const lines = await page.$$eval('#chat-messages li', (items) =>
      items.map((li) => `${li.className}|${(li.querySelector('strong') as HTMLElement).innerText}`),
    );
    expect(lines).to.deep.equal(['from-bot|Notetaker', '|Alice Example', 'from-bot|Notetaker']);
    meeting.chat('Bob Example', 'thanks');
    await waitForText(page, '#chat-messages', 'thanks');
    expect(await page.$$eval('#chat-messages li', (items) => items.length)).to.equal(4);
    expect(await fitsPhone(page, 'meeting-chat'), 'the chat fits 360 px').to.equal(true);
    expect(await unlabelledControls(page)).to.deep.equal([]);
    expect(consoleErrors).to.deep.equal([]);
  });
});
