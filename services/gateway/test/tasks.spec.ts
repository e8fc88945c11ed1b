/**
 * The tasks API (docs/api/reference.md#tasks) over HTTP against the whole stack
 * (startTestStack), the model a scripted OpenAI-compatible server on loopback (test/support/fake-llm.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import {
  historyResponse,
  task as taskSchema,
  taskDetailsResponse,
  type Task,
  type TaskExecution,
} from '@notetaker/contracts';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { eventually, sleep } from '../../../test/support/wait.js';
import { stackPerSuite } from './support/stack-per-suite.js';

describe('tasks REST API', function () {
  this.timeout(30_000);
  let llm: FakeLlm;
  before(async () => {
    llm = await startFakeLlm();
  });
  const t = stackPerSuite({ env: () => llm.env(), capabilities: [] });
  after(() => llm.close());

  const call = async (method: string, pathname: string, json?: unknown) => {
    const res = await t.api(pathname, { method, apiKey: t.apiKey, ...(json !== undefined && { json }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const create = (body: Record<string, unknown>) => call('POST', '/tasks', body);
  const history = async (name: string, query = ''): Promise<TaskExecution[]> =>
    (await call('GET', `/tasks/${name}/history${query}`)).body.executions;
  const settled = (name: string, count = 1): Promise<TaskExecution[]> =>
    eventually(
      async () => {
        const list = await history(name);
        return list.length >= count && list.every((e) => e.status !== 'running') && list;
      },
      `${count} settled executions of ${name}`,
      15_000,
    );

  beforeEach(() => {
    llm.requests.length = 0;
    llm.script([]);
    llm.respond(() => ({ answer: 'ok', usage: { prompt: 1, completion: 1 } }));
  });

  describe('POST /tasks', () => {
    it('creates a scheduled task: 201 {task} with defaults, isScheduled and nextRunAt', async () => {
      const before = Date.now();
      const { status, body } = await create({
        name: 'daily.acme',
        skillName: 'daily-meeting-digest',
        cronExpression: '0 18 * * *',
      });
      expect(status).to.equal(201);
      const task = taskSchema.strict().parse(body.task);
      expect(task).to.deep.include({
        name: 'daily.acme',
        skillName: 'daily-meeting-digest',
        cronExpression: '0 18 * * *',
        timezone: 'UTC',
        enabled: true,
        timeoutMs: 300_000,
        lastRunAt: null,
        lastStatus: null,
        isScheduled: true,
      });
      expect(task.createdAt).to.equal(task.updatedAt);
      expect(Date.parse(task.createdAt)).to.be.at.least(before - 5);
      const next = new Date(task.nextRunAt!);
      expect(next.getUTCHours()).to.equal(18);
      expect(next.getTime() - Date.now()).to.be.within(0, 24 * 3600_000);
    });

    it('creates an on-demand task with no cronExpression and nextRunAt null', async () => {
      const { status, body } = await create({
        name: 'adhoc',
        skillName: 'latest-meeting-action-items',
        timeout: 60_000,
        enabled: false,
      });
      expect(status).to.equal(201);
      expect(body.task).to.include({ isScheduled: false, nextRunAt: null, timeoutMs: 60_000, enabled: false });
      expect(body.task).not.to.have.property('cronExpression');
    });

    it('evaluates the cron in the given zone and stores its canonical name', async () => {
      const { body } = await create({
        name: 'tokyo',
        skillName: 'daily-meeting-digest',
        cronExpression: '0 9 * * *',
        timezone: 'asia/tokyo',
      });
      expect(body.task.timezone).to.equal('Asia/Tokyo');
      expect(new Date(body.task.nextRunAt).getUTCHours()).to.equal(0);
    });

    it('answers 404 naming an unknown skill and 409 naming a duplicate name', async () => {
      const unknown = await create({ name: 'ghost', skillName: 'no-such-skill' });
      expect(unknown).to.deep.equal({ status: 404, body: { error: 'Skill not found: no-such-skill' } });
      await create({ name: 'twice', skillName: 'daily-meeting-digest' });
      const again = await create({ name: 'twice', skillName: 'latest-meeting-action-items' });
      expect(again).to.deep.equal({ status: 409, body: { error: 'Task already exists: twice' } });
    });

    /** A task of the digest skill named `name`, with `fields` besides. */
    const digestTask = (name: string, fields: Record<string, unknown>) => ({
      name,
      skillName: 'daily-meeting-digest',
      ...fields,
    });
    const invalid: Array<[string, Record<string, unknown>, string | RegExp]> = [
      ['a name outside the pattern', { name: '-bad', skillName: 'daily-meeting-digest' }, /^name must match/],
      ['a name over 64 characters', { name: 'a'.repeat(65), skillName: 'daily-meeting-digest' }, /^name must match/],
      ['no name', { skillName: 'daily-meeting-digest' }, 'name is required and must be a string'],
      ['a skill name with upper case', { name: 'x1', skillName: 'Daily' }, /^skillName must be/],
      ['a skill name with a double hyphen', { name: 'x2', skillName: 'a--b' }, /^skillName must be/],
      ['a path as skill name', { name: 'x3', skillName: '../etc' }, /^skillName must be/],
      ['a 6-field cron', digestTask('x4', { cronExpression: '* * * * * *' }), /exactly 5 fields/],
      ['a cron preset', digestTask('x5', { cronExpression: '@daily' }), /exactly 5 fields/],
      ['a cron value out of range', digestTask('x6', { cronExpression: '61 * * * *' }), /^cronExpression is invalid/],
      [
        'a cron date that never comes',
        digestTask('x7', { cronExpression: '0 0 31 2 *' }),
        'cronExpression never matches a date',
      ],
      ['an unknown time zone', digestTask('x8', { timezone: 'Mars/Olympus' }), /^timezone must be an IANA/],
      ['a zero timeout', digestTask('x9', { timeout: 0 }), 'timeout must be a positive integer'],
      ['a fractional timeout', digestTask('x10', { timeout: 1.5 }), 'timeout must be a positive integer'],
      ['a timeout over an hour', digestTask('x11', { timeout: 3_600_001 }), 'timeout must be at most 3600000 ms'],
      ['a timeout as a string', digestTask('x12', { timeout: '1000' }), 'timeout must be a number of milliseconds'],
      ['enabled as a string', digestTask('x13', { enabled: 'yes' }), 'enabled must be a boolean'],
      ['an unknown field', digestTask('x14', { prompt: 'hi' }), 'Unknown field: prompt'],
    ];
    for (const [label, body, message] of invalid) {
      it(`answers 400 for ${label}`, async () => {
        const res = await create(body);
        expect(res.status).to.equal(400);
        if (typeof message === 'string') expect(res.body.error).to.equal(message);
        else expect(res.body.error).to.match(message);
      });
    }
  });

  describe('reading tasks', () => {
    it('lists all tasks, or only scheduled / on-demand ones', async () => {
      const all = (await call('GET', '/tasks')).body.tasks as Task[];
      expect(all.map((x) => x.name)).to.include.members(['daily.acme', 'adhoc', 'tokyo']);
      expect(all.map((x) => x.name)).to.deep.equal([...all.map((x) => x.name)].sort());
      const scheduled = (await call('GET', '/tasks?scheduled=true')).body.tasks as Task[];
      const onDemand = (await call('GET', '/tasks?scheduled=false')).body.tasks as Task[];
      expect(scheduled.every((x) => x.isScheduled)).to.equal(true);
      expect(onDemand.every((x) => !x.isScheduled)).to.equal(true);
      expect(scheduled.length + onDemand.length).to.equal(all.length);
      expect(await call('GET', '/tasks?scheduled=maybe')).to.deep.equal({
        status: 400,
        body: { error: 'scheduled must be true or false' },
      });
    });

    it('answers 404 Task not found for an unknown task on every route', async () => {
      for (const [method, suffix] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/run'],
        ['POST', '/enable'],
        ['POST', '/disable'],
        ['GET', '/history'],
      ]) {
        const res = await call(method, `/tasks/nope${suffix}`, method === 'PUT' ? { enabled: false } : undefined);
        expect(res, `${method} ${suffix}`).to.deep.equal({ status: 404, body: { error: 'Task not found' } });
      }
      expect((await call('GET', '/tasks/..%2F..')).body).to.deep.equal({ error: 'Task not found' });
    });

    it('refuses a request without a key', async () => {
      expect((await t.api('/tasks')).status).to.equal(401);
    });
  });

  describe('PUT /tasks/:name', () => {
    it('changes only the fields given and keeps updatedAt current', async () => {
      await create({ name: 'editable', skillName: 'daily-meeting-digest', cronExpression: '0 8 * * *' });
      await sleep(5);
      const { status, body } = await call('PUT', '/tasks/editable', { timeout: 1000, timezone: 'Europe/Paris' });
      expect(status).to.equal(200);
      expect(body.task).to.include({
        timeoutMs: 1000,
        timezone: 'Europe/Paris',
        cronExpression: '0 8 * * *',
        skillName: 'daily-meeting-digest',
      });
      expect(Date.parse(body.task.updatedAt)).to.be.above(Date.parse(body.task.createdAt));
      const reskilled = await call('PUT', '/tasks/editable', { skillName: 'latest-meeting-action-items' });
      expect(reskilled.body.task).to.include({ skillName: 'latest-meeting-action-items', timeoutMs: 1000 });
    });

    it('makes a task on-demand with cronExpression null, and scheduled again with a new one', async () => {
      const onDemand = await call('PUT', '/tasks/editable', { cronExpression: null });
      expect(onDemand.body.task).to.include({ isScheduled: false, nextRunAt: null });
      expect((await call('POST', '/tasks/editable/disable')).status).to.equal(409);
      const again = await call('PUT', '/tasks/editable', { cronExpression: '*/5 * * * *' });
      expect(again.body.task).to.include({ isScheduled: true, cronExpression: '*/5 * * * *' });
      expect(Date.parse(again.body.task.nextRunAt) - Date.now()).to.be.within(0, 5 * 60_000);
    });

    it('validates like create: 404 unknown skill, 400 bad cron / zone / timeout / fields / empty body', async () => {
      expect(await call('PUT', '/tasks/editable', { skillName: 'nope' })).to.deep.equal({
        status: 404,
        body: { error: 'Skill not found: nope' },
      });
      expect((await call('PUT', '/tasks/editable', { cronExpression: '* * *' })).status).to.equal(400);
      expect((await call('PUT', '/tasks/editable', { cronExpression: '0 0 * * 9' })).status).to.equal(400);
      expect((await call('PUT', '/tasks/editable', { timezone: 'Nowhere/Land' })).status).to.equal(400);
      expect((await call('PUT', '/tasks/editable', { timeout: -5 })).status).to.equal(400);
      expect(await call('PUT', '/tasks/editable', { name: 'renamed' })).to.deep.equal({
        status: 400,
        body: { error: 'Unknown field: name' },
      });
      expect((await call('PUT', '/tasks/editable', {})).status).to.equal(400);
      expect((await call('GET', '/tasks/editable')).body.task.cronExpression).to.equal('*/5 * * * *');
    });
  });

  describe('enable and disable', () => {
    it('pause and resume the schedule: 200 {task}, nextRunAt null while disabled, cron kept', async () => {
      await create({ name: 'toggled', skillName: 'daily-meeting-digest', cronExpression: '30 6 * * 1-5' });
      const disabled = await call('POST', '/tasks/toggled/disable');
      expect(disabled.status).to.equal(200);
      expect(disabled.body.task).to.include({
        enabled: false,
        nextRunAt: null,
        cronExpression: '30 6 * * 1-5',
        isScheduled: true,
      });
      const enabled = await call('POST', '/tasks/toggled/enable');
      expect(enabled.status).to.equal(200);
      expect(enabled.body.task.enabled).to.equal(true);
      expect(enabled.body.task.nextRunAt).to.be.a('string');
    });

    it('answer 409 for an on-demand task, which has no schedule', async () => {
      await create({ name: 'manual-only', skillName: 'daily-meeting-digest' });
      for (const verb of ['enable', 'disable']) {
        const res = await call('POST', `/tasks/manual-only/${verb}`);
        expect(res).to.deep.equal({
          status: 409,
          body: { error: `Task manual-only is on-demand: it has no schedule to ${verb}` },
        });
      }
    });
  });

  describe('runs and history', () => {
    it('POST run answers 202 and the outcome lands in history (completed, with tokens and the answer)', async () => {
      fs.mkdirSync(path.join(t.contentRoot, 'deployed-md-files/docs/acme/meetings'), { recursive: true });
      llm.script([
        { toolCalls: [{ name: 'list_projects', arguments: {} }], usage: { prompt: 40, completion: 8 } },
        {
          toolCalls: [
            {
              name: 'write_project_document',
              arguments: { projectId: 'acme', path: 'digests/2025-01-31 daily digest.md', content: '# Daily digest\n' },
            },
          ],
          usage: { prompt: 60, completion: 12 },
        },
        { answer: 'Wrote the digest for acme.', usage: { prompt: 80, completion: 6 } },
      ]);
      const run = await call('POST', '/tasks/daily.acme/run');
      expect(run).to.deep.equal({
        status: 202,
        body: { success: true, message: run.body.message, taskName: 'daily.acme' },
      });
      expect(run.body.message).to.match(/^Task daily\.acme started/);
      const [execution] = await settled('daily.acme');
      expect(execution).to.include({
        name: 'daily.acme',
        status: 'completed',
        executionType: 'manual',
        triggerType: 'api',
        resultSummary: 'Wrote the digest for acme.',
        inputTokens: 180,
        outputTokens: 26,
      });
      // The list_projects tool reached the real project-catalog over the bus.
      const toolAnswer = llm.requests[1].messages.find((m) => m.role === 'tool')!.content!;
      expect(JSON.parse(toolAnswer).projects.map((p: { id: string }) => p.id)).to.include('acme');
      const digest = path.join(t.contentRoot, 'deployed-md-files/docs/acme/digests/2025-01-31 daily digest.md');
      expect(fs.readFileSync(digest, 'utf8')).to.equal('# Daily digest\n');

      const details = taskDetailsResponse.parse((await call('GET', '/tasks/daily.acme')).body);
      expect(details.task).to.include({ lastStatus: 'completed', lastRunAt: execution.startedAt });
      expect(details.recentExecutions[0]).to.include({ executionId: execution.executionId, status: 'completed' });
      expect(details.recentExecutions[0]).not.to.have.property('resultSummary');
    });

    it('runs a disabled schedule and an on-demand task too; 409 while one still runs', async () => {
      await call('POST', '/tasks/toggled/disable');
      expect((await call('POST', '/tasks/toggled/run')).status).to.equal(202);
      await settled('toggled');
      llm.respond(() => ({ answer: 'slow', delayMs: 1500 }));
      expect((await call('POST', '/tasks/manual-only/run')).status).to.equal(202);
      expect(await call('POST', '/tasks/manual-only/run')).to.deep.equal({
        status: 409,
        body: { error: 'Task manual-only is already running' },
      });
      const [running] = await history('manual-only');
      expect(running).to.include({ status: 'running', completedAt: null, durationMs: null, resultSummary: null });
      await settled('manual-only');
    });

    it('records failed when the model endpoint fails, and timeout when it is too slow', async () => {
      await create({ name: 'flaky', skillName: 'daily-meeting-digest' });
      llm.respond(() => ({ status: 503, error: 'upstream unavailable' }));
      await call('POST', '/tasks/flaky/run');
      const [failed] = await settled('flaky');
      expect(failed.status).to.equal('failed');
      expect(failed.resultSummary).to.contain('503').and.contain('upstream unavailable');

      await create({ name: 'sluggish', skillName: 'daily-meeting-digest', timeout: 300 });
      llm.respond(() => ({ answer: 'late', delayMs: 5000 }));
      await call('POST', '/tasks/sluggish/run');
      const [timedOut] = await settled('sluggish');
      expect(timedOut).to.include({ status: 'timeout', resultSummary: 'Timed out after 300 ms' });
      expect((await call('GET', '/tasks/sluggish')).body.task.lastStatus).to.equal('timeout');
    });

    it('pages history newest first: limit default 50, clamped to 100, offset', async () => {
      await create({ name: 'busy', skillName: 'daily-meeting-digest' });
      llm.respond((_req, i) => ({ answer: `answer ${i}` }));
      for (let i = 0; i < 105; i++) {
        expect((await call('POST', '/tasks/busy/run')).status).to.equal(202);
        await settled('busy', i + 1 > 50 ? 50 : i + 1);
      }
      const page = historyResponse.parse((await call('GET', '/tasks/busy/history')).body).executions;
      expect(page).to.have.length(50);
      const starts = page.map((e) => Date.parse(e.startedAt));
      expect(starts).to.deep.equal([...starts].sort((a, b) => b - a));
      expect(await history('busy', '?limit=500')).to.have.length(100);
      const second = await history('busy', '?limit=2&offset=1');
      expect(second.map((e) => e.executionId)).to.deep.equal(page.slice(1, 3).map((e) => e.executionId));
      expect(page[0].resultSummary).to.match(/^answer \d+$/);
    });

    for (const query of ['?limit=-1', '?limit=abc', '?limit=0', '?offset=-3', '?offset=x', '?limit=1.5', '?page=2']) {
      it(`answers 400 for history${query}`, async () => {
        const res = await call('GET', `/tasks/busy/history${query}`);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.be.a('string');
      });
    }
  });

  describe('DELETE /tasks/:name', () => {
    it('deletes the task, cancels its running execution, and forgets its history', async () => {
      await create({ name: 'short-lived', skillName: 'daily-meeting-digest' });
      llm.respond(() => ({ answer: 'never', delayMs: 10_000 }));
      const abortedBefore = llm.aborted;
      await call('POST', '/tasks/short-lived/run');
      await eventually(() => llm.requests.length > 0, 'the model request');
      const res = await call('DELETE', '/tasks/short-lived');
      expect(res).to.deep.equal({
        status: 200,
        body: { success: true, message: 'Task short-lived deleted and its running execution cancelled' },
      });
      expect((await call('GET', '/tasks/short-lived')).status).to.equal(404);
      await eventually(() => llm.aborted === abortedBefore + 1, 'the model request aborted');
      // The name is free again, with a clean history.
      expect((await create({ name: 'short-lived', skillName: 'daily-meeting-digest' })).status).to.equal(201);
      expect(await history('short-lived')).to.deep.equal([]);
    });
  });
});

describe('tasks REST API with more tasks than one bus page', function () {
  this.timeout(60_000);
  const t = stackPerSuite({ capabilities: [] });

  it('lists every task, in name order', async () => {
    const names = Array.from({ length: 1005 }, (_, i) => `bulk-${String(i).padStart(4, '0')}`);
    for (let i = 0; i < names.length; i += 25) {
      await Promise.all(
        names.slice(i, i + 25).map(async (name, j) => {
          const json = {
            name,
            skillName: 'daily-meeting-digest',
            ...((i + j) % 2 === 0 && { cronExpression: '0 * * * *' }),
          };
          const res = await t.api('/tasks', { method: 'POST', apiKey: t.apiKey, json });
          expect(res.status).to.equal(201);
        }),
      );
    }
    const all = (await (await t.api('/tasks', { apiKey: t.apiKey })).json()) as { tasks: Task[] };
    expect(all.tasks.map((x) => x.name)).to.deep.equal(names);
    const scheduled = (await (await t.api('/tasks?scheduled=true', { apiKey: t.apiKey })).json()) as { tasks: Task[] };
    expect(scheduled.tasks).to.have.length(503);
  });
});
