/**
 * Executions end to end inside the service: the real service on a real store and bus, the model
 * a real HTTP server (test/support/fake-llm.ts) scripted per test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { routes, type TaskExecution } from '@notetaker/contracts';
import { startFakeLlm, type FakeLlm } from '../../../test/support/fake-llm.js';
import { eventually, harnessForSuite, sleep, startHarness, type Harness } from './harness.js';

describe('task executions', function () {
  this.timeout(30_000);
  let llm: FakeLlm;
  let h: Harness;
  let skillsDir: string;

  const history = async (name: string): Promise<TaskExecution[]> =>
    (await h.request<{ executions: TaskExecution[] }>('history', { name, limit: 100, offset: 0 })).executions;
  const finished = (name: string, count = 1) =>
    eventually(async () => {
      const list = await history(name);
      return list.length >= count && list.every((e) => e.status !== 'running') && list;
    }, 15_000);
  /** Creates a task and runs it against a model that does not answer; resolves once its request is in flight. */
  const startHangingRun = async (name: string) => {
    await h.request('create', { name, skillName: 'daily-meeting-digest' });
    llm.respond(() => ({ answer: 'never', delayMs: 10_000 }));
    await h.request('run', { name });
    await eventually(async () => llm.requests.length === 1);
  };

  before(async () => {
    llm = await startFakeLlm();
    skillsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'skills-'));
    fs.cpSync(path.resolve('skills'), skillsDir, { recursive: true });
    fs.mkdirSync(path.join(skillsDir, 'broken-skill'));
    fs.writeFileSync(path.join(skillsDir, 'broken-skill/SKILL.md'), 'no front matter here\n');
    h = await startHarness({
      ...llm.env(),
      SKILLS_DIR: skillsDir,
      TASKS_HISTORY_LIMIT: '3',
      TASKS_MAX_ITERATIONS: '3',
    });
    fs.mkdirSync(path.join(h.contentRoot, 'deployed-md-files/docs/acme'), { recursive: true });
  });
  after(async () => {
    await h.stop();
    await llm.close();
    fs.rmSync(skillsDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    llm.requests.length = 0;
    llm.script([]);
  });

  it('runs the agent loop: skill as system prompt, tool calls, summed tokens, the answer as resultSummary', async () => {
    await h.request('create', { name: 'digest.acme', skillName: 'daily-meeting-digest' });
    llm.script([
      {
        toolCalls: [
          { name: 'list_project_meetings', arguments: { projectId: 'acme' } },
          {
            name: 'write_project_document',
            arguments: { projectId: 'acme', path: 'digests/today.md', content: '# Digest\n' },
          },
        ],
        usage: { prompt: 100, completion: 20 },
      },
      { answer: 'Wrote digests/today.md for acme.', usage: { prompt: 150, completion: 30 } },
    ]);
    const run = await h.request('run', { name: 'digest.acme' });
    expect(run).to.include({ success: true, taskName: 'digest.acme' });
    const [execution] = await finished('digest.acme');
    expect(execution).to.include({
      status: 'completed',
      executionType: 'manual',
      triggerType: 'api',
      resultSummary: 'Wrote digests/today.md for acme.',
      inputTokens: 250,
      outputTokens: 50,
    });
    expect(execution.durationMs).to.be.a('number');
    expect(Date.parse(execution.completedAt!)).to.be.at.least(Date.parse(execution.startedAt));

    const [first, second] = llm.requests;
    expect(first.model).to.equal(llm.model);
    expect(first.authorization).to.equal(`Bearer ${llm.apiKey}`);
    expect(first.messages[0].role).to.equal('system');
    expect(first.messages[0].content).to.contain('You write the daily digest');
    expect(first.messages[1].content).to.contain('Project: acme');
    expect(first.tools?.map((t) => t.function.name)).to.have.members([
      'list_projects',
      'list_project_meetings',
      'read_transcript',
      'search_transcripts',
      'read_document',
      'write_project_document',
    ]);
    // Nobody serves svc.projects.meetings on this bus: the model is told, the run goes on.
    const toolResults = second.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(toolResults[0]).to.match(/^Error: .*svc\.projects\.meetings/);
    expect(toolResults[1]).to.match(/^Wrote deployed-md-files\/docs\/acme\/digests\/today\.md/);
    const file = path.join(h.contentRoot, 'deployed-md-files/docs/acme/digests/today.md');
    expect(fs.readFileSync(file, 'utf8')).to.equal('# Digest\n');

    const { task } = await h.request('get', { name: 'digest.acme' });
    expect(task).to.include({ lastStatus: 'completed', lastRunAt: execution.startedAt });
  });

  it('hands bad tool arguments and unknown tools back to the model as errors', async () => {
    await h.request('create', { name: 'tools-probe', skillName: 'daily-meeting-digest' });
    llm.script([
      {
        toolCalls: [
          { name: 'write_project_document', arguments: { projectId: 'acme', path: '../../escape.md', content: 'x' } },
          { name: 'format_disk', arguments: {} },
          { name: 'list_project_meetings', arguments: { projectId: '../etc' } },
        ],
      },
      { answer: 'done' },
    ]);
    // Run from the web: the history says so.
    await h.request('run', { name: 'tools-probe', caller: { kind: 'ui', accountId: 'acct_admin' } });
    const [execution] = await finished('tools-probe');
    expect(execution).to.include({ status: 'completed', triggerType: 'ui' });
    const results = llm.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results[0]).to.contain('not allowed');
    expect(results[1]).to.equal('Error: unknown tool format_disk');
    expect(results[2]).to.contain('invalid arguments: projectId');
  });

  it('fails with a clear summary when the model endpoint fails', async () => {
    await h.request('create', { name: 'failing', skillName: 'daily-meeting-digest' });
    llm.respond(() => ({ status: 500, error: 'model overloaded' }));
    await h.request('run', { name: 'failing' });
    const [execution] = await finished('failing');
    expect(execution.status).to.equal('failed');
    expect(execution.resultSummary).to.contain('500').and.to.contain('model overloaded');
    expect(execution.resultSummary).not.to.contain(llm.apiKey);
    // The client retried (TASKS_LLM_MAX_RETRIES default 2) before giving up.
    expect(llm.requests).to.have.length(3);
  });

  it('times out: the AbortSignal ends the model request in flight', async () => {
    await h.request('create', { name: 'slow', skillName: 'daily-meeting-digest', timeout: 400 });
    llm.respond(() => ({ answer: 'too late', delayMs: 10_000 }));
    const abortedBefore = llm.aborted;
    await h.request('run', { name: 'slow' });
    const [execution] = await finished('slow');
    expect(execution).to.include({ status: 'timeout', resultSummary: 'Timed out after 400 ms' });
    expect(execution.durationMs).to.be.within(400, 2000);
    await eventually(async () => llm.aborted === abortedBefore + 1);
  });

  it('times out during a tool call: the slow service is not waited for', async () => {
    // A peer on the bus that never answers in time (svc.projects.list is otherwise unserved here).
    const slowPeer = h.bus.serve(routes.projects.list.subject, () => sleep(1500));
    try {
      await h.request('create', { name: 'slow-tool', skillName: 'daily-meeting-digest', timeout: 500 });
      llm.script([{ toolCalls: [{ name: 'list_projects', arguments: {} }], usage: { prompt: 7, completion: 2 } }]);
      await h.request('run', { name: 'slow-tool' });
      const [execution] = await finished('slow-tool');
      expect(execution).to.include({ status: 'timeout', inputTokens: 7, outputTokens: 2 });
      expect(execution.durationMs).to.be.within(500, 2000);
      expect(llm.requests).to.have.length(1);
    } finally {
      await slowPeer.unsubscribe();
    }
  });

  it('caps the number of model turns', async () => {
    await h.request('create', { name: 'loops', skillName: 'daily-meeting-digest' });
    llm.respond(() => ({ toolCalls: [{ name: 'list_projects', arguments: {} }], usage: { prompt: 5, completion: 1 } }));
    await h.request('run', { name: 'loops' });
    const [execution] = await finished('loops');
    expect(execution.status).to.equal('failed');
    expect(execution.resultSummary).to.contain('Stopped after 3 model turns');
    expect(execution).to.include({ inputTokens: 15, outputTokens: 3 });
  });

  it('fails a malformed skill with a clear summary, and the service goes on', async () => {
    await h.request('create', { name: 'broken', skillName: 'broken-skill' });
    await h.request('run', { name: 'broken' });
    const [execution] = await finished('broken');
    expect(execution.status).to.equal('failed');
    expect(execution.resultSummary).to.equal(
      'Skill broken-skill is malformed: SKILL.md must start with YAML front matter between --- lines',
    );
    expect(llm.requests).to.have.length(0);
  });

  it('refuses a second run while one runs (409) and cancels the run when the task is deleted', async () => {
    await startHangingRun('doomed');
    const again = await h.request('run', { name: 'doomed' }).catch((err: Error) => err);
    expect(again).to.include({ status: 409, message: 'Task doomed is already running' });
    const abortedBefore = llm.aborted;
    const deleted = await h.request('delete', { name: 'doomed' });
    expect(deleted).to.deep.equal({
      success: true,
      message: 'Task doomed deleted and its running execution cancelled',
    });
    await eventually(async () => llm.aborted === abortedBefore + 1);
    const gone = await h.request('history', { name: 'doomed', limit: 10, offset: 0 }).catch((err: Error) => err);
    expect(gone).to.include({ status: 404, message: 'Task not found' });
  });

  it('keeps the newest TASKS_HISTORY_LIMIT executions', async () => {
    await h.request('create', { name: 'pruned', skillName: 'daily-meeting-digest' });
    llm.respond((_req, i) => ({ answer: `run ${i}` }));
    for (let i = 0; i < 5; i++) {
      await h.request('run', { name: 'pruned' });
      await finished('pruned', Math.min(i + 1, 3));
      await eventually(async () => (await history('pruned')).every((e) => e.status !== 'running'));
    }
    const list = await history('pruned');
    expect(list.map((e) => e.resultSummary)).to.deep.equal(['run 4', 'run 3', 'run 2']);
  });

  it('cuts the resultSummary to 2,000 characters', async () => {
    await h.request('create', { name: 'verbose', skillName: 'daily-meeting-digest' });
    llm.script([{ answer: 'x'.repeat(5000) }]);
    await h.request('run', { name: 'verbose' });
    const [execution] = await finished('verbose');
    expect(execution.resultSummary).to.have.length(2000);
  });

  it('marks runs still going when the service stops as stale', async () => {
    await startHangingRun('interrupted');
    await h.restart();
    const [execution] = await history('interrupted');
    expect(execution.status).to.equal('stale');
    expect(execution.completedAt).to.be.a('string');
    expect((await h.request('get', { name: 'interrupted' })).task.lastStatus).to.equal('stale');
  });
});

describe('task executions without a model', () => {
  const harness = harnessForSuite();

  it('fail with a resultSummary naming the variables to set', async () => {
    const h = harness();
    await h.request('create', { name: 'no-model', skillName: 'latest-meeting-action-items' });
    await h.request('run', { name: 'no-model' });
    const [execution] = await eventually(async () => {
      const { executions } = await h.request('history', { name: 'no-model', limit: 10, offset: 0 });
      return executions[0]?.status !== 'running' && executions;
    });
    expect(execution.status).to.equal('failed');
    expect(execution.resultSummary).to.equal(
      'No language model is configured: set LLM_MODEL and LLM_BASE_URL (or LLM_API_KEY for the default OpenAI endpoint)',
    );
  });
});
