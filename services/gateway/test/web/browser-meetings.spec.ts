/**
 * Meetings, projects, search and tasks in real Chromium against the real stack. A scripted
 * meeting platform stands in for Google Meet (every service of ours runs for real around it):
 * start from the UI, watch the scripted words arrive live, see an API key refused the same link,
 * stop, open the document; find it in its project and by search; create, run and pause a task.
 * Then every main page at 360 px, by keyboard, with a screenshot of each.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { scriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import {
  clickAndWait,
  fill,
  fitsPhone,
  fitsWidth,
  pathOf,
  screenshot,
  text,
  waitForText,
  unlabelledControls,
} from './support/browser.js';
import { chromiumOnStack } from './support/chromium-stack.js';
import { OWNER } from './support/web-client.js';

const MEET_URL = 'https://meet.google.com/abc-defg-hij';

function skillsFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-web-skills-'));
  fs.mkdirSync(path.join(dir, 'summarize-notes'));
  fs.writeFileSync(
    path.join(dir, 'summarize-notes', 'SKILL.md'),
    '---\nname: summarize-notes\ndescription: Summarises the latest meeting notes of a project.\n---\nRead the notes and summarise them.\n',
  );
  return dir;
}

describe('web application in Chromium: meetings, projects and tasks', function () {
  this.timeout(60_000);
  const platform = scriptedDriverFactory();
  let skillsDir: string;
  let meetingId = '';
  /** Script errors and CSP violations the pages caused: there must be none. */
  const consoleErrors: string[] = [];
  const web = chromiumOnStack({
    env: () => {
      skillsDir = skillsFolder();
      return { SKILLS_DIR: skillsDir };
    },
    stack: { driverFactory: platform },
    consoleErrors,
    owner: OWNER,
  });
  after(() => {
    if (skillsDir) fs.rmSync(skillsDir, { recursive: true, force: true });
  });

  it('starts a meeting from the UI, streams it live, refuses the link to an API key, stops it and opens its document', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/meetings`);
    expect(await text(page, '#live-list')).to.contain('No meeting started here is being transcribed right now.');
    await fill(page, '#f-url', MEET_URL);
    await fill(page, '#f-title', 'Weekly sync');
    await fill(page, '#f-project', 'webtest');
    await clickAndWait(page, 'form[action="/meetings"] button[type=submit]');
    const match = /^\/meetings\/(meeting_\d{13}_[A-Za-z0-9]+)$/.exec(pathOf(page));
    expect(match, pathOf(page)).to.not.equal(null);
    meetingId = match![1];
    expect(await text(page, 'h1')).to.equal('Weekly sync');

    const meeting = await platform.meeting(meetingId);
    await waitForText(page, '#meeting-status', 'Live');
    meeting.participants(['Alice Example', 'Bob Example']);
    meeting.caption({ captionId: 'c1', speaker: 'Alice Example', text: 'Welcome to the' });
    await waitForText(page, '#partials', 'Welcome to the');
    meeting.segment({ speaker: 'Alice Example', text: 'Welcome to the weekly sync.' });
    meeting.segment({ speaker: 'Bob Example', text: 'The budget review is on Friday.' });
    await waitForText(page, '#segments', 'The budget review is on Friday.');
    const lines = await page.$$eval('#segments li', (items) => items.map((li) => (li as HTMLElement).innerText));
    expect(lines[0]).to.match(/^Alice Example .*\n+Welcome to the weekly sync\.$/);
    expect(lines[1]).to.match(/^Bob Example .*\n+The budget review is on Friday\.$/);
    expect(await text(page, '#partials')).to.equal('');
    // Words are words: markup in a caption never becomes markup on the page.
    meeting.segment({
      speaker: 'Mallory <b>',
      text: '<img src=x onerror="window.pwned=1"> see <script>window.pwned=2</script>',
    });
    await waitForText(page, '#segments', '<img src=x');
    expect(await page.$$eval('#segments img, #segments script, #segments b', (els) => els.length)).to.equal(0);
    await waitForText(page, '#participants', 'Bob Example');
    expect(await text(page, '#participant-count')).to.equal('2');
    await screenshot(page, 'meeting-live');
    expect(await fitsPhone(page, 'meeting-live'), 'live view fits 360 px').to.equal(true);

    // The meeting belongs to no key: a key cannot take the link, nor see the meeting.
    const { apiKey } = await t.createToken();
    const taken = await t.api('/meetings/start', {
      apiKey,
      method: 'POST',
      json: { url: MEET_URL, callbackUrl: 'http://127.0.0.1:9/hook' },
    });
    expect(taken.status).to.equal(409);
    expect(await taken.json()).to.deep.equal({ error: 'Meeting URL is already being transcribed' });
    const status = await t.api('/meetings/status', { apiKey });
    expect(await status.json()).to.deep.equal({ meetings: [] });
    expect((await t.api(`/meetings/${meetingId}/transcript`, { apiKey })).status).to.equal(404);

    await page.goto(`${t.baseUrl}/meetings`);
    expect(await text(page, '#live-list')).to.contain('Weekly sync');
    await screenshot(page, 'meetings');
    expect(await fitsPhone(page, 'meetings-live'), 'meetings with a live one fit 360 px').to.equal(true);
    await clickAndWait(page, `#live-list a[href="/meetings/${meetingId}"]`);
    await waitForText(page, '#segments', 'The budget review is on Friday.');

    await clickAndWait(page, '#stop-form button');
    expect(pathOf(page)).to.equal(`/meetings/${meetingId}?notice=meeting-stopping`);
    await page.waitForSelector('#document-link:not([hidden]) a', { timeout: 15_000 });
    await waitForText(page, '#meeting-status', 'Ended');
    // Hidden by the live page, or not rendered at all when the meeting had ended by the redirect.
    expect(await page.$('#stop-form:not([hidden])')).to.equal(null);

    await clickAndWait(page, '#document-link a');
    expect(pathOf(page)).to.equal(`/documents/${meetingId}`);
    const doc = await text(page, '.markdown');
    expect(doc).to.contain('Weekly sync');
    expect(doc).to.match(/Alice Example.*Welcome to the weekly sync\./);
    expect(await text(page, '.markdown')).to.contain('<img src=x onerror=');
    expect(await page.$$eval('.markdown img, .markdown script', (els) => els.length)).to.equal(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).to.equal(undefined);
    await screenshot(page, 'document');
    const download = await page.evaluate(async (href) => {
      const res = await fetch(href);
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition'),
        body: await res.text(),
      };
    }, `/documents/${meetingId}/download`);
    expect(download.status).to.equal(200);
    expect(download.type).to.equal('text/markdown; charset=utf-8');
    expect(download.disposition).to.match(/^attachment; filename=".+\.md"/);
    expect(download.body).to.match(new RegExp(`^meetingId: "?${meetingId}"?$`, 'm'));
  });

  it('lists the project with its meeting history and finds the meeting by search', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/projects`);
    await screenshot(page, 'projects');
    await clickAndWait(page, 'a[href="/projects/webtest"]');
    const history = await text(page, 'ol.history');
    expect(history).to.contain('Weekly sync');
    expect(history).to.contain('Completed');
    await screenshot(page, 'project-history');
    await clickAndWait(page, `ol.history a[href="/documents/${meetingId}"]`);
    expect(await text(page, '.markdown')).to.contain('The budget review is on Friday.');

    await page.goto(`${t.baseUrl}/search`);
    await fill(page, '#f-q', 'budget review');
    await clickAndWait(page, 'form.search-form button[type=submit]');
    const results = await text(page, 'ol.results');
    expect(results).to.contain('Weekly sync');
    expect(results).to.contain('webtest');
    await screenshot(page, 'search');
  });

  it('creates a task with a skill from the skills folder and a previewed schedule, runs it and pauses it', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/tasks`);
    await clickAndWait(page, 'a[href="/tasks/new"]');
    await fill(page, '#f-name', 'weekly-notes');
    await page.select('#f-skillName', 'summarize-notes');
    await fill(page, '#f-timezone', 'Europe/Paris');
    await fill(page, '#f-cronExpression', '0 9 * * 1-5');
    await waitForText(page, '#cron-preview', 'Next runs (Europe/Paris)');
    const runs = await page.$$eval('#cron-preview time', (els) => els.map((el) => el.getAttribute('datetime')!));
    expect(runs).to.have.length(5);
    for (const iso of runs) {
      const wall = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Paris',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'short',
      }).format(new Date(iso));
      expect(wall).to.match(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
    }
    await screenshot(page, 'task-new');
    await clickAndWait(page, 'form[action="/tasks"] button[type=submit]:not([formmethod])');
    expect(pathOf(page)).to.equal('/tasks/weekly-notes?notice=task-created');
    expect(await text(page, 'dl.facts'))
      .to.contain('0 9 * * 1-5')
      .and.contain('Europe/Paris');

    await clickAndWait(page, 'form[action="/tasks/weekly-notes/run"] button');
    expect(await text(page, '.notice')).to.contain('The task is running.');
    const history = await text(page, 'table');
    expect(history).to.contain('this application');

    await clickAndWait(page, 'form[action="/tasks/weekly-notes/disable"] button');
    expect(await text(page, '.notice')).to.contain('The schedule is paused.');
    expect(await text(page, '.actions')).to.contain('Enable schedule');
    await screenshot(page, 'task');
    await page.goto(`${t.baseUrl}/tasks`);
    expect(await text(page, 'table'))
      .to.contain('weekly-notes')
      .and.contain('paused');
    await screenshot(page, 'tasks');
  });

  it('works at 360 px wide: no sideways scrolling, every field labelled', async () => {
    const { page, t } = web;
    await page.setViewport({ width: 360, height: 740 });
    const pages: Array<[string, string]> = [
      ['meetings', '/meetings'],
      ['meeting', `/meetings/${meetingId}`],
      ['document', `/documents/${meetingId}`],
      ['projects', '/projects'],
      ['project-history', '/projects/webtest'],
      ['search', '/search?q=budget'],
      ['tasks', '/tasks'],
      ['task-new', '/tasks/new'],
      ['task', '/tasks/weekly-notes'],
      ['tokens', '/settings/tokens'],
      ['accounts', '/settings/accounts'],
    ];
    for (const [name, href] of pages) {
      await page.goto(`${t.baseUrl}${href}`);
      await screenshot(page, `${name}-360`);
      expect(pathOf(page), name).to.equal(href);
      expect(await fitsWidth(page), `${name} fits 360 px`).to.equal(true);
      expect(await unlabelledControls(page), `${name} labels`).to.deep.equal([]);
    }
  });

  it('can be used with the keyboard alone', async () => {
    const { page, t } = web;
    await page.goto(`${t.baseUrl}/settings/tokens`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).to.equal('skip-link');
    await page.keyboard.press('Enter');
    let focused = '';
    for (let i = 0; i < 40 && focused !== 'f-name'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.id ?? '');
    }
    expect(focused).to.equal('f-name');
    await page.keyboard.type('Keyboard token');
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(pathOf(page)).to.equal('/settings/tokens/new');
    expect(await text(page, 'h1')).to.equal('Token “Keyboard token” created');
  });

  it('ran every page without a script error or a Content-Security-Policy violation', () => {
    expect(consoleErrors).to.deep.equal([]);
  });
});
