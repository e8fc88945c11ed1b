/**
 * The MCP tools against the whole stack (scripted meeting platform, fake model), driven by the
 * SDKs' own clients on both protocol eras: every tool listed with its schemas and annotations,
 * every tool called with structuredContent equal to the REST body for the same request, every
 * failure an isError result with REST's own message, protocol errors as JSON-RPC errors.
 */
import { expect } from 'chai';
import { startFakeLlm, type FakeLlm } from '../../../../test/support/fake-llm.js';
import { scriptedDriverFactory, type ScriptedDriverFactory } from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';
import { connectMcp, ERAS, mcpPerSuite } from './clients.js';
import { eventually } from '../../../../test/support/wait.js';
import { meetUrl } from '../support/meeting-with-receiver.js';

const READ_ONLY = [
  'list_meetings',
  'get_transcript',
  'get_events',
  'get_deliveries',
  'get_document',
  'get_recording',
  'list_projects',
  'list_project_meetings',
  'search_transcripts',
  'list_tasks',
  'get_task',
  'get_task_history',
  'list_calendars',
  'get_calendar',
  'list_calendar_events',
];
const WRITING = [
  'start_meeting',
  'stop_meeting',
  'delete_recording',
  'create_task',
  'update_task',
  'delete_task',
  'run_task',
  'enable_task',
  'disable_task',
  'connect_calendar',
  'disconnect_calendar',
  'set_calendar_event_join',
  'send_chat_message',
  'speak',
];
const TOOL_NAMES = [...READ_ONLY, ...WRITING];
const CALLBACK = 'http://127.0.0.1:9/hook';

describe('MCP tools (/mcp) on the whole stack', function () {
  this.timeout(60_000);
  let t: TestStack;
  let llm: FakeLlm;
  let driver: ScriptedDriverFactory;
  let key: { id: string; apiKey: string };
  let readOnly: { id: string; apiKey: string };

  before(async () => {
    llm = await startFakeLlm();
    llm.respond(() => ({ answer: 'digest ready', usage: { prompt: 3, completion: 2 } }));
    driver = scriptedDriverFactory();
    t = await startTestStack({ ...llm.env(), FLUSH_INTERVAL_MS: '200' }, { driverFactory: driver });
    key = await t.createToken();
    readOnly = await t.createToken([]);
  });
  after(async () => {
    await t.stop();
    await llm.close();
  });

  /** The REST answer to the same request: status and JSON body. */
  async function rest(method: string, pathname: string, json?: unknown, apiKey = key.apiKey) {
    const res = await t.api(pathname, { method, apiKey, ...(json !== undefined && { json }) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  for (const { era, label } of ERAS) {
    describe(label, () => {
      const mcp = mcpPerSuite(() => connectMcp(t.baseUrl, era, { apiKey: key.apiKey }));
      const ro = mcpPerSuite(() => connectMcp(t.baseUrl, era, { apiKey: readOnly.apiKey }));

      const ok = async (name: string, args: Record<string, unknown> = {}) => {
        const result = await mcp.call(name, args);
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).to.not.equal(true);
        expect(result.content[0]).to.include({ type: 'text' });
        return result.structuredContent!;
      };
      const failure = async (name: string, args: Record<string, unknown>, client = mcp) => {
        const result = await client.call(name, args);
        expect(result.isError, JSON.stringify(result)).to.equal(true);
        expect(result.structuredContent).to.equal(undefined);
        return result.content.map((c) => c.text).join('');
      };

      it('lists every tool (29), each with an input schema describing every field, an output schema and annotations', async () => {
        const tools = await mcp.listTools();
        expect(tools.map((tool) => tool.name).sort()).to.deep.equal([...TOOL_NAMES].sort());
        for (const tool of tools) {
          expect(tool.description, tool.name).to.be.a('string').and.not.equal('');
          expect(tool.outputSchema, tool.name).to.include({ type: 'object' });
          for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
            expect(schema.description, `${tool.name}.${field}`).to.be.a('string').and.not.equal('');
          }
          expect(tool.annotations?.readOnlyHint, tool.name).to.equal(READ_ONLY.includes(tool.name));
          const destructive = ['stop_meeting', 'delete_recording', 'delete_task', 'disconnect_calendar'].includes(
            tool.name,
          );
          if (!READ_ONLY.includes(tool.name))
            expect(tool.annotations?.destructiveHint, tool.name).to.equal(destructive);
        }
        const events = tools.find((tool) => tool.name === 'get_events')!;
        expect(Object.keys(events.inputSchema.properties!)).to.deep.equal(['meetingId', 'after', 'limit', 'types']);
        expect(Object.keys(events.outputSchema!.properties!)).to.deep.equal([
          'meetingId',
          'events',
          'nextAfter',
          'ended',
        ]);
        const start = tools.find((tool) => tool.name === 'start_meeting')!;
        expect(start.inputSchema.required).to.deep.equal(['url', 'callbackUrl']);
        expect(Object.keys(start.inputSchema.properties!)).to.deep.equal([
          'url',
          'title',
          'callbackUrl',
          'project',
          'saveTranscript',
          'signIn',
          'language',
          'passcode',
          'coach',
          'recording',
          'transcription',
          'announcement',
        ]);
        const transcript = tools.find((tool) => tool.name === 'get_transcript')!;
        expect(Object.keys(transcript.inputSchema.properties!)).to.deep.equal(['meetingId', 'after']);
      });

      it('meetings: start, list, transcript (whole and by `after`), document, stop, each equal to REST', async () => {
        const started = await ok('start_meeting', { url: meetUrl(), callbackUrl: CALLBACK, title: `MCP ${era}` });
        expect(started).to.include({ status: 'joining', platform: 'google_meet', project: 'api' });
        const meetingId = String(started.meetingId);
        const meeting = await driver.meeting(meetingId);
        await eventually(
          async () => (await rest('GET', `/meetings/${meetingId}/transcript`)).body.status === 'live',
          'live',
        );
        meeting.segment({ speaker: 'Alice', text: 'First point' });
        meeting.segment({ speaker: 'Bob', text: 'Second point' });
        meeting.segment({ speaker: 'Alice', text: 'Third point' });
        await eventually(
          async () =>
            ((await rest('GET', `/meetings/${meetingId}/transcript`)).body.segments as unknown[]).length === 3,
          'three segments',
        );

        expect(await ok('list_meetings')).to.deep.equal((await rest('GET', '/meetings/status')).body);
        const whole = await ok('get_transcript', { meetingId });
        expect(whole).to.deep.equal((await rest('GET', `/meetings/${meetingId}/transcript`)).body);
        const later = await ok('get_transcript', { meetingId, after: 0 });
        expect(later).to.deep.equal((await rest('GET', `/meetings/${meetingId}/transcript?after=0`)).body);
        expect((later.segments as Array<{ text: string }>).map((s) => s.text)).to.deep.equal([
          'Second point',
          'Third point',
        ]);
        expect((await ok('get_transcript', { meetingId, after: 2 })).segments).to.deep.equal([]);

        // get_events: the same arguments and body as GET /meetings/{id}/events. The meeting is live
        // (a periodic flush may add document_saved between two reads): the first n events, as many
        // as there are now, are the same for both.
        const limit = ((await rest('GET', `/meetings/${meetingId}/events`)).body.events as unknown[]).length;
        const events = await ok('get_events', { meetingId, limit });
        expect(events).to.deep.equal((await rest('GET', `/meetings/${meetingId}/events?limit=${limit}`)).body);
        expect(events.ended).to.equal(false);
        const segmentsOnly = await ok('get_events', { meetingId, after: 1, limit: 2, types: 'segment_finalized' });
        expect(segmentsOnly).to.deep.equal(
          (await rest('GET', `/meetings/${meetingId}/events?after=1&limit=2&types=segment_finalized`)).body,
        );
        expect(
          (segmentsOnly.events as Array<{ type: string; payload: { text: string } }>).map((e) => e.payload.text),
        ).to.deep.equal(['First point', 'Second point']);

        // send_chat_message: queued, posted by the bot, and read back in get_transcript's chat.
        const queued = await ok('send_chat_message', { meetingId, text: ' Notes follow. ' });
        expect(queued).to.deep.equal((await rest('POST', `/meetings/${meetingId}/chat`, { text: 'And slides.' })).body);
        await eventually(
          async () => ((await ok('get_transcript', { meetingId })).chat as unknown[]).length === 2,
          'chat',
        );
        expect(meeting.posted).to.deep.equal(['Notes follow.', 'And slides.']);
        expect(await failure('send_chat_message', { meetingId, text: '' })).to.match(/text/);

        // A flush with every segment: the document no longer changes while the meeting goes on.
        await eventually(
          async () =>
            (await (await t.api(`/meetings/${meetingId}/document`, { apiKey: key.apiKey })).text()).includes(
              'Third point',
            ),
          'a document with every segment',
        );
        const document = await ok('get_document', { meetingId });
        const restDocument = await t.api(`/meetings/${meetingId}/document`, { apiKey: key.apiKey });
        expect(document.content).to.equal(await restDocument.text());
        expect(document).to.include({ meetingId, documentPath: started.documentPath });

        const stopped = await ok('stop_meeting', { meetingId });
        expect(stopped).to.deep.equal({ meetingId, status: 'stopping' });
        await eventually(
          async () => (await rest('GET', `/meetings/${meetingId}/transcript`)).body.status === 'ended',
          'ended',
        );
        expect(await failure('stop_meeting', { meetingId })).to.equal(
          (await rest('POST', '/meetings/stop', { meetingId })).body.error,
        );
        expect(await failure('stop_meeting', { meetingId })).to.equal('Meeting has ended');
      });

      it('projects and search: list_projects, list_project_meetings, search_transcripts equal REST', async () => {
        expect(await ok('list_projects')).to.deep.equal((await rest('GET', '/projects')).body);
        expect(await ok('list_project_meetings', { projectId: 'api' })).to.deep.equal(
          (await rest('GET', '/projects/api/meetings')).body,
        );
        await eventually(
          async () => ((await rest('GET', '/search?q=point')).body.results as unknown[]).length > 0,
          'a search result',
        );
        expect(await ok('search_transcripts', { q: 'point', limit: 5 })).to.deep.equal(
          (await rest('GET', '/search?q=point&limit=5')).body,
        );
      });

      it('tasks: create, list, get, update, disable, enable, run, history, delete, each equal to REST', async () => {
        const name = `digest-${era}`;
        const created = await ok('create_task', {
          name,
          skillName: 'daily-meeting-digest',
          cronExpression: '30 6 * * 1-5',
          timezone: 'Europe/Paris',
        });
        expect(created).to.deep.equal({ task: (await rest('GET', `/tasks/${name}`)).body.task });
        expect(await ok('list_tasks', { scheduled: 'true' })).to.deep.equal(
          (await rest('GET', '/tasks?scheduled=true')).body,
        );
        expect(await ok('get_task', { name })).to.deep.equal((await rest('GET', `/tasks/${name}`)).body);
        const updated = await ok('update_task', { name, changes: { cronExpression: '0 7 * * *' } });
        expect((updated.task as { cronExpression: string }).cronExpression).to.equal('0 7 * * *');
        expect(updated).to.deep.equal({ task: (await rest('GET', `/tasks/${name}`)).body.task });
        const disabled = await ok('disable_task', { name });
        expect(disabled.task).to.include({ enabled: false, nextRunAt: null });
        const enabled = await ok('enable_task', { name });
        expect(enabled.task).to.include({ enabled: true });
        expect(await ok('run_task', { name })).to.include({ success: true, taskName: name });
        await eventually(
          async () =>
            ((await rest('GET', `/tasks/${name}/history`)).body.executions as Array<{ status: string }>).some(
              (e) => e.status !== 'running',
            ),
          'the run to finish',
        );
        expect(await ok('get_task_history', { name, limit: 10 })).to.deep.equal(
          (await rest('GET', `/tasks/${name}/history?limit=10`)).body,
        );
        const deleted = await ok('delete_task', { name });
        expect(deleted).to.include({ success: true });
        expect(await failure('get_task', { name })).to.equal((await rest('GET', `/tasks/${name}`)).body.error);
      });

      it('answers every failure as isError with the message REST gives for the same request', async () => {
        const url = meetUrl();
        type Case = [string, Record<string, unknown>, string, string, unknown];
        /** A tool beside REST's `method pathname`, a POST's body being the tool's arguments as they are. */
        const viaRest = (
          tool: string,
          args: Record<string, unknown>,
          method: 'GET' | 'POST',
          pathname: string,
        ): Case => [tool, args, method, pathname, method === 'POST' ? args : undefined];
        const unknownId = 'meeting_1700000000000_AbCdEf1234';
        const cases: Case[] = [
          viaRest('get_transcript', { meetingId: unknownId }, 'GET', `/meetings/${unknownId}/transcript`),
          viaRest('get_transcript', { meetingId: 'nonsense' }, 'GET', '/meetings/nonsense/transcript'),
          viaRest(
            'get_transcript',
            { meetingId: 'nonsense', after: -1 },
            'GET',
            '/meetings/nonsense/transcript?after=-1',
          ),
          viaRest('get_events', { meetingId: unknownId }, 'GET', `/meetings/${unknownId}/events`),
          viaRest('get_events', { meetingId: 'nonsense', limit: 5000 }, 'GET', '/meetings/nonsense/events?limit=5000'),
          viaRest(
            'get_events',
            { meetingId: 'nonsense', types: 'speech' },
            'GET',
            '/meetings/nonsense/events?types=speech',
          ),
          viaRest('get_document', { meetingId: unknownId }, 'GET', `/meetings/${unknownId}/document`),
          viaRest('stop_meeting', { meetingId: unknownId }, 'POST', '/meetings/stop'),
          viaRest('stop_meeting', {}, 'POST', '/meetings/stop'),
          viaRest('start_meeting', { url, callbackUrl: 'ftp://x' }, 'POST', '/meetings/start'),
          viaRest('start_meeting', { url, callbackUrl: CALLBACK, bot: 'x' }, 'POST', '/meetings/start'),
          viaRest('start_meeting', { callbackUrl: CALLBACK }, 'POST', '/meetings/start'),
          viaRest('list_project_meetings', { projectId: 'nope' }, 'GET', '/projects/nope/meetings'),
          viaRest('list_project_meetings', { projectId: '../etc' }, 'GET', '/projects/..%2Fetc/meetings'),
          viaRest('search_transcripts', { q: ' ' }, 'GET', '/search?q=%20'),
          viaRest('list_tasks', { scheduled: 'yes' }, 'GET', '/tasks?scheduled=yes'),
          viaRest('get_task', { name: 'no-such-task' }, 'GET', '/tasks/no-such-task'),
          viaRest('get_task', { name: 'bad name!' }, 'GET', '/tasks/bad%20name%21'),
          viaRest('create_task', { name: 'x1', skillName: 'nope' }, 'POST', '/tasks'),
          viaRest(
            'create_task',
            { name: 'x2', skillName: 'daily-meeting-digest', cronExpression: '* * *' },
            'POST',
            '/tasks',
          ),
          [
            'update_task',
            { name: 'no-such-task', changes: { enabled: false } },
            'PUT',
            '/tasks/no-such-task',
            { enabled: false },
          ],
          viaRest('get_task_history', { name: 'no-such-task', limit: 0 }, 'GET', '/tasks/no-such-task/history?limit=0'),
        ];
        for (const [tool, args, method, pathname, json] of cases) {
          const expected = await rest(method, pathname, json);
          expect(expected.status, `${method} ${pathname}`).to.be.within(400, 499);
          expect(await failure(tool, args), `${tool} ${JSON.stringify(args)}`).to.equal(expected.body.error);
        }

        // 409: the same name twice; the same URL live under another key.
        await ok('create_task', { name: `dup-${era}`, skillName: 'daily-meeting-digest' });
        expect(await failure('create_task', { name: `dup-${era}`, skillName: 'daily-meeting-digest' })).to.equal(
          (await rest('POST', '/tasks', { name: `dup-${era}`, skillName: 'daily-meeting-digest' })).body.error,
        );
        await ok('start_meeting', { url, callbackUrl: CALLBACK, saveTranscript: false });
        expect(await failure('start_meeting', { url, callbackUrl: CALLBACK, saveTranscript: false }, ro)).to.equal(
          'Meeting URL is already being transcribed',
        );
        // 403: saving a transcript without knowledge:write.
        const forbidden = await rest(
          'POST',
          '/meetings/start',
          { url: meetUrl(), callbackUrl: CALLBACK },
          readOnly.apiKey,
        );
        expect(forbidden.status).to.equal(403);
        expect(await failure('start_meeting', { url: meetUrl(), callbackUrl: CALLBACK }, ro)).to.equal(
          forbidden.body.error,
        );
      });

      it('answers an unknown tool and malformed arguments as JSON-RPC errors, not tool results', async () => {
        const unknown = await mcp.call('no_such_tool', {}).then(
          (r) => ({ result: r }),
          (err: { code?: number; message: string }) => ({ err }),
        );
        expect(unknown).to.have.property('err');
        expect((unknown as { err: { code: number } }).err.code).to.equal(-32602);
        const malformed = await mcp.rawCall({ name: 'list_tasks', arguments: 'not an object' }).then(
          (r) => ({ result: r }),
          (err: { code?: number; message: string }) => ({ err }),
        );
        expect(malformed).to.have.property('err');
        expect((malformed as { err: { code: number } }).err.code).to.equal(-32602);
      });
    });
  }
});
