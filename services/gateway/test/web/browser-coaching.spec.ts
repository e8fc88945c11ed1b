/**
 * Coaching on the web meeting page, in real Chromium against the real stack with a scripted
 * platform and a fake OpenAI-compatible model: the start form's coach choice reaches the meeting,
 * and the live view shows each insight as it comes (category, source, message), words as words.
 */
import { expect } from 'chai';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startFakeLlm, type FakeLlm } from '../../../../test/support/fake-llm.js';
import { clickAndWait, fill, fitsPhone, pathOf, screenshot, text, waitForText } from './support/browser.js';
import { chromiumOnStack } from './support/chromium-stack.js';
import { OWNER } from './support/web-client.js';

describe('web application in Chromium: coaching on the live meeting page', function () {
  this.timeout(60_000);
  const platform = scriptedDriverFactory();
  let fake: FakeLlm;
  const consoleErrors: string[] = [];
  const web = chromiumOnStack({
    env: async () => {
      fake = await startFakeLlm();
      return { ...fake.env(), COACH_INTERVAL_MS: '100' };
    },
    stack: { driverFactory: platform },
    consoleErrors,
    owner: OWNER,
  });
  after(() => fake?.close());

  it('starts with the coach chosen in the form and shows rule and model insights live', async () => {
    const { page, t } = web;
    fake.respond(() => ({
      answer: JSON.stringify({
        summary: 'The release is on Friday.',
        insights: [
          {
            category: 'action_item',
            message: 'Nobody owns the <b>release notes</b>: name an owner.',
            speaker: null,
            segments: [0],
          },
        ],
      }),
      usage: { prompt: 300, completion: 40 },
    }));
    await page.goto(`${t.baseUrl}/meetings`);
    await fill(page, '#f-url', 'https://meet.google.com/coa-chin-gaa');
    await fill(page, '#f-title', 'Coached sync');
    await page.select('#f-coach', 'ai');
    await clickAndWait(page, 'form[action="/meetings"] button[type=submit]');
    const meetingId = /^\/meetings\/(meeting_\d{13}_[A-Za-z0-9]+)$/.exec(pathOf(page))![1];
    expect(await text(page, '#coaching')).to.contain('No insights yet.');

    const meeting = await platform.meeting(meetingId);
    await waitForText(page, '#meeting-status', 'Live');
    const t0 = Date.now() - 120_000;
    meeting.segment({ speaker: 'Ada', text: 'Who writes the release notes?', timestamp: new Date(t0).toISOString() });
    // A minute later, nobody having answered: the rules raise it.
    meeting.segment({ speaker: 'Ada', text: 'Fine, Friday it is.', timestamp: new Date(t0 + 60_000).toISOString() });

    await waitForText(page, '#insights', 'Unanswered question');
    await waitForText(page, '#insights', 'Nobody owns the <b>release notes</b>');
    const items = await page.$$eval('#insights li', (lis) =>
      lis.map((li) => ({ source: (li as HTMLElement).dataset.source, text: (li as HTMLElement).innerText })),
    );
    const model = items.find((i) => i.source === 'model')!;
    expect(model.text).to.match(
      /^Action item AI \(fake-model\)\n+Nobody owns the <b>release notes<\/b>: name an owner\.$/,
    );
    const rules = items.find((i) => i.source === 'rules')!;
    expect(rules.text).to.match(/^Unanswered question Rules\n+Ada asked "Who writes the release notes\?"/);
    expect(await page.$$eval('#insights b', (els) => els.length)).to.equal(0);
    expect(await page.$eval('#no-insights', (el) => (el as HTMLElement).hidden)).to.equal(true);
    await screenshot(page, 'meeting-coaching');
    expect(await fitsPhone(page, 'meeting-coaching'), 'the live view with insights fits 360 px').to.equal(true);

    expect(fake.requests.length).to.be.at.least(1);
    await clickAndWait(page, '#stop-form button');
    await waitForText(page, '#meeting-status', 'Ended');
    expect(consoleErrors).to.deep.equal([]);
  });
});
