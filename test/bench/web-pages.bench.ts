/**
 * How long each main page of the web application takes to load, signed in, over keep-alive on
 * loopback, against the real stack with some data behind it (a saved meeting of 200 segments,
 * tokens, a task with history). Target: every page under 300 ms.
 * Run: npx tsx services/gateway/test/web/web-pages.bench.ts
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptedDriverFactory } from '../support/scripted-driver.js';
import { startTestStack } from '../support/stack.js';
import { formatRow, runWindowed } from './stats.js';
import { WebClient } from '../../services/gateway/test/web/support/web-client.js';

const PER_PAGE = 100;
const TARGET_MS = 300;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function get(port: number, pathname: string, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: pathname, agent, headers: { Cookie: cookie } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

const skillsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-bench-skills-'));
fs.mkdirSync(path.join(skillsDir, 'summarize-notes'));
fs.writeFileSync(
  path.join(skillsDir, 'summarize-notes', 'SKILL.md'),
  '---\nname: summarize-notes\ndescription: d\n---\nDo it.\n',
);
const platform = scriptedDriverFactory();
const t = await startTestStack({ SKILLS_DIR: skillsDir }, { driverFactory: platform });
try {
  const client = new WebClient(t.baseUrl);
  await client.setup('owner@example.com', 'a long enough password');
  for (let i = 0; i < 5; i++)
    await client.post('/settings/tokens', {
      _csrf: await client.csrf('/settings/tokens'),
      name: `token ${i}`,
      capabilities: 'knowledge:write',
    });
  const started = await client.post('/meetings', {
    _csrf: await client.csrf('/meetings'),
    url: 'https://meet.google.com/abc-defg-hij',
    title: 'Bench meeting',
    project: 'bench',
    saveTranscript: 'true',
  });
  const meetingId = started.location!.split('/').pop()!;
  const meeting = await platform.meeting(meetingId);
  meeting.participants(['Alice', 'Bob']);
  for (let i = 0; i < 200; i++)
    meeting.segment({
      speaker: i % 2 ? 'Bob' : 'Alice',
      text: `Segment ${i} about the quarterly budget and the roadmap.`,
    });
  await new Promise((r) => setTimeout(r, 500));
  await client.post(`/meetings/${meetingId}/stop`, { _csrf: await client.csrf('/meetings') });
  for (let i = 0; i < 50 && !(await client.get(`/documents/${meetingId}`)).text.includes('Segment 199'); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.post('/tasks', {
    _csrf: await client.csrf('/tasks/new'),
    name: 'bench-task',
    skillName: 'summarize-notes',
    cronExpression: '0 9 * * 1-5',
    timezone: 'Europe/Paris',
    enabled: 'true',
    timeout: '300',
  });
  for (let i = 0; i < 5; i++)
    await client
      .post('/tasks/bench-task/run', { _csrf: await client.csrf('/tasks') })
      .then(() => new Promise((r) => setTimeout(r, 50)));

  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const port = Number(new URL(t.baseUrl).port);
  const pages = [
    '/meetings',
    `/meetings/${meetingId}`,
    `/documents/${meetingId}`,
    '/projects',
    '/projects/bench',
    '/search?q=budget',
    '/tasks',
    '/tasks/new',
    '/tasks/bench-task',
    '/settings/tokens',
    '/settings/accounts',
  ];
  console.log(
    `web pages: ${PER_PAGE} sequential GETs each, signed in (keep-alive, loopback); target < ${TARGET_MS} ms`,
  );
  let worst = 0;
  for (const page of pages) {
    const status = await get(port, page, cookie);
    if (status !== 200) throw new Error(`${page} answered ${status}`);
    await runWindowed(10, 1, () => get(port, page, cookie));
    const s = await runWindowed(PER_PAGE, 1, () => get(port, page, cookie));
    worst = Math.max(worst, s.p99);
    console.log(formatRow(`  ${page.replace(meetingId, ':meetingId')}`, s));
  }
  console.log(
    `  worst p99 ${worst.toFixed(1)} ms: ${worst < TARGET_MS ? 'within' : 'OVER'} the ${TARGET_MS} ms target`,
  );
} finally {
  agent.destroy();
  await t.stop();
  fs.rmSync(skillsDir, { recursive: true, force: true });
}
