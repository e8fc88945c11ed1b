/**
 * The web forms, REST and MCP are three doors to the same operations (operations/index.ts): the
 * same bad input, sent through the web form, REST and an MCP tools/call (the SDK's own client), is
 * answered with the same message, and the web shows it next to the field the message names. One
 * case per input the operation's schema refuses, and per refusal the service itself makes (a link
 * that is no meeting, a task name taken, a stop after the end), for every operation with a form:
 * start_meeting, stop_meeting, create_task, enable_task, disable_task and search_transcripts.
 * Real stack, scripted meeting platform.
 */
import { expect } from 'chai';
import { eventually } from '../../../../test/support/wait.js';
import { connectMcp, mcpPerSuite } from '../mcp/clients.js';
import { meetUrl } from '../support/meeting-with-receiver.js';
import { signedInStackPerSuite } from './support/signed-in-stack.js';
import type { WebResponse } from './support/web-client.js';

const CALLBACK = 'http://127.0.0.1:9/hook';
const SKILL = 'daily-meeting-digest';
const TAKEN_NAME = 'same-answers-taken';
const ON_DEMAND = 'same-answers-on-demand';

const UNESCAPED: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => UNESCAPED[e]);

/** The message the page shows next to `field`, or null. */
function fieldError(page: WebResponse, field: string): string | null {
  const match = new RegExp(`id="f-${field}-error"[^>]*>([^<]*)<`).exec(page.text);
  return match ? unescape(match[1]) : null;
}

/** Every field the page marks wrong, by name. */
const wrongFields = (page: WebResponse) => [...page.text.matchAll(/id="f-(\w+)-error"/g)].map((m) => m[1]);

/** The notice a page shows at its top (a refusal of one of its buttons). */
function notice(page: WebResponse): string | null {
  const match = /<p class="notice" role="status">([^<]*)<\/p>/.exec(page.text);
  return match ? unescape(match[1]) : null;
}

interface FormCase {
  field: string;
  /** What the web form sends for it (text, as a browser does). */
  web: string;
  /** The same input as REST's body or query and the tool's arguments. */
  api: unknown;
}

describe('the same bad input through the web, REST and MCP', function () {
  this.timeout(90_000);
  const t = signedInStackPerSuite();
  const mcp = mcpPerSuite(() => connectMcp(t.baseUrl, 'modern', { apiKey: t.apiKey }));

  async function rest(method: string, path: string, json?: unknown): Promise<{ status: number; error: string }> {
    const res = await t.api(path, { method, apiKey: t.apiKey, json });
    const body = (await res.json()) as { error?: string };
    return { status: res.status, error: body.error ?? `no error: ${JSON.stringify(body)}` };
  }
  async function tool(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await mcp.call(name, args);
    expect(result.isError, `${name}: ${JSON.stringify(result)}`).to.equal(true);
    return result.content[0]?.text ?? '';
  }

  /**
   * One bad field through the three doors: the web shows REST's message next to that field alone,
   * MCP's is the same, and a 400's message names the field.
   */
  async function sameAnswer(
    c: FormCase,
    doors: {
      web: (field: string, value: string) => Promise<WebResponse>;
      rest: (field: string, value: unknown) => Promise<{ status: number; error: string }>;
      tool: (field: string, value: unknown) => Promise<string>;
    },
  ) {
    const label = `${c.field} = ${JSON.stringify(c.api)}`;
    const [web, viaRest, viaTool] = await Promise.all([
      doors.web(c.field, c.web),
      doors.rest(c.field, c.api),
      doors.tool(c.field, c.api),
    ]);
    expect(viaRest.status, `${label}: REST ${viaRest.error}`).to.be.within(400, 499);
    expect(web.status, `${label}: web`).to.equal(viaRest.status);
    expect(wrongFields(web), `${label}: the fields the web marks`).to.deep.equal([c.field]);
    expect(fieldError(web, c.field), `${label}: web`).to.equal(viaRest.error);
    expect(viaTool, `${label}: MCP`).to.equal(viaRest.error);
    if (viaRest.status === 400) expect(viaRest.error, label).to.match(new RegExp(`^${c.field}\\b`));
  }

  it('start_meeting: each bad field, and a link that is no meeting', async () => {
    const webStart = { url: meetUrl(), project: 'general', saveTranscript: 'true' };
    const apiStart = () => ({ url: meetUrl(), callbackUrl: CALLBACK, project: 'general' });
    const cases: FormCase[] = [
      { field: 'url', web: '', api: '' },
      { field: 'url', web: 'https://example.com/not-a-meeting', api: 'https://example.com/not-a-meeting' },
      { field: 'title', web: 'x'.repeat(201), api: 'x'.repeat(201) },
      { field: 'project', web: 'no spaces here', api: 'no spaces here' },
      { field: 'signIn', web: 'sometimes', api: 'sometimes' },
      { field: 'language', web: 'German', api: 'German' },
      { field: 'passcode', web: 'x'.repeat(33), api: 'x'.repeat(33) },
      { field: 'coach', web: 'loud', api: 'loud' },
      { field: 'recording', web: 'video', api: 'video' },
      { field: 'transcription', web: 'telepathy', api: 'telepathy' },
    ];
    for (const c of cases) {
      await sameAnswer(c, {
        web: (field, value) => t.owner.submit('/meetings', { ...webStart, [field]: value }),
        rest: (field, value) => rest('POST', '/meetings/start', { ...apiStart(), [field]: value }),
        tool: (field, value) => tool('start_meeting', { ...apiStart(), [field]: value }),
      });
    }
    expect(t.platform.started, 'no bot was sent').to.have.length(0);
  });

  it('create_task: each bad field, a skill that does not exist and a name taken', async () => {
    expect((await rest('POST', '/tasks', { name: TAKEN_NAME, skillName: SKILL })).status).to.equal(201);
    const webTask = { name: 'same-answers-new', skillName: SKILL, cronExpression: '', timezone: 'UTC', timeout: '300' };
    const apiTask = { name: 'same-answers-new', skillName: SKILL };
    const cases: FormCase[] = [
      { field: 'name', web: 'bad name!', api: 'bad name!' },
      { field: 'name', web: TAKEN_NAME, api: TAKEN_NAME },
      { field: 'skillName', web: '', api: '' },
      { field: 'skillName', web: 'Not_A_Skill', api: 'Not_A_Skill' },
      { field: 'skillName', web: 'no-such-skill', api: 'no-such-skill' },
      { field: 'cronExpression', web: '* * *', api: '* * *' },
      // Five fields the schema lets through, and the scheduler refuses.
      { field: 'cronExpression', web: '61 * * * *', api: '61 * * * *' },
      { field: 'timezone', web: 'Mars/Olympus', api: 'Mars/Olympus' },
      // The form counts seconds, REST and MCP milliseconds: the same hour and a bit.
      { field: 'timeout', web: '4000', api: 4_000_000 },
      { field: 'timeout', web: '0', api: 0 },
    ];
    for (const c of cases) {
      await sameAnswer(c, {
        web: (field, value) => t.owner.submit('/tasks', { ...webTask, [field]: value }, '/tasks/new'),
        rest: (field, value) => rest('POST', '/tasks', { ...apiTask, [field]: value }),
        tool: (field, value) => tool('create_task', { ...apiTask, [field]: value }),
      });
    }
    const { tasks } = (await (await t.api('/tasks', { apiKey: t.apiKey })).json()) as {
      tasks: Array<{ name: string }>;
    };
    expect(
      tasks.map((task) => task.name),
      'no task was created',
    ).to.deep.equal([TAKEN_NAME]);
  });

  it('search_transcripts: an empty or long query, and a bad project', async () => {
    const cases: FormCase[] = [
      { field: 'q', web: '   ', api: '   ' },
      { field: 'q', web: 'x'.repeat(201), api: 'x'.repeat(201) },
      { field: 'project', web: 'no spaces here', api: 'no spaces here' },
    ];
    const query = (field: string, value: unknown) => new URLSearchParams({ q: 'budget', [field]: String(value) });
    for (const c of cases) {
      await sameAnswer(c, {
        web: (field, value) => t.owner.get(`/search?${query(field, value)}`),
        rest: (field, value) => rest('GET', `/search?${query(field, value)}`),
        tool: (field, value) => tool('search_transcripts', { q: 'budget', [field]: value }),
      });
    }
  });

  it('stop_meeting: a meeting that has ended', async () => {
    // The web's meeting (the account's) and the key's meeting, each stopped once and ended.
    const started = await t.owner.submit('/meetings', { url: meetUrl(), project: 'general', saveTranscript: 'true' });
    expect(started.status, started.text.slice(0, 300)).to.equal(303);
    const webMeeting = started.location!.split('/').pop()!;
    const viaKey = await t.api('/meetings/start', {
      method: 'POST',
      apiKey: t.apiKey,
      json: { url: meetUrl(), callbackUrl: CALLBACK },
    });
    expect(viaKey.status).to.equal(201);
    const keyMeeting = ((await viaKey.json()) as { meetingId: string }).meetingId;
    const webStatus = async (id: string) =>
      /id="meeting-status"><span class="badge status-\w+" data-status="(\w+)"/.exec(
        (await t.owner.get(`/meetings/${id}`)).text,
      )?.[1];
    const keyStatus = async (id: string) =>
      ((await (await t.api(`/meetings/${id}/transcript`, { apiKey: t.apiKey })).json()) as { status: string }).status;
    await t.platform.meeting(webMeeting);
    await t.platform.meeting(keyMeeting);
    await eventually(async () => (await webStatus(webMeeting)) === 'live', 'the web meeting live');
    await eventually(async () => (await keyStatus(keyMeeting)) === 'live', 'the key meeting live');
    const stopHere = (id: string) => t.owner.submit(`/meetings/${id}/stop`, {}, `/meetings/${id}`);
    expect((await stopHere(webMeeting)).status).to.equal(303);
    expect((await rest('POST', '/meetings/stop', { meetingId: keyMeeting })).status).to.equal(200);
    await eventually(async () => (await webStatus(webMeeting)) === 'ended', 'the web meeting ended');
    await eventually(async () => (await keyStatus(keyMeeting)) === 'ended', 'the key meeting ended');

    const web = await stopHere(webMeeting);
    const viaRest = await rest('POST', '/meetings/stop', { meetingId: keyMeeting });
    const viaTool = await tool('stop_meeting', { meetingId: keyMeeting });
    expect(viaRest.status).to.equal(409);
    expect(web.status).to.equal(409);
    expect(notice(web), 'the web').to.equal(viaRest.error);
    expect(viaTool, 'MCP').to.equal(viaRest.error);
  });

  it('enable_task and disable_task: a task that has no schedule', async () => {
    expect((await rest('POST', '/tasks', { name: ON_DEMAND, skillName: SKILL })).status).to.equal(201);
    for (const verb of ['enable', 'disable']) {
      const web = await t.owner.submit(`/tasks/${ON_DEMAND}/${verb}`, {}, `/tasks/${ON_DEMAND}`);
      const viaRest = await rest('POST', `/tasks/${ON_DEMAND}/${verb}`);
      const viaTool = await tool(`${verb}_task`, { name: ON_DEMAND });
      expect(viaRest.status, verb).to.equal(409);
      expect(web.status, verb).to.equal(409);
      expect(notice(web), `${verb}: the web`).to.equal(viaRest.error);
      expect(viaTool, `${verb}: MCP`).to.equal(viaRest.error);
    }
  });
});
