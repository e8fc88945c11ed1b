import { expect } from 'chai';
import { z } from 'zod';
import {
  API_CAPABILITIES,
  defineCapability,
  listed,
  pathParameters,
  routes,
  runTask,
  startMeeting,
  stopMeeting,
  type RestDeclaration,
} from '../src/index.js';

const TOKEN = { kind: 'token', tokenId: 'tok_a', capabilities: [] } as const;
const rest = (path: string): RestDeclaration => ({ method: 'get', path, summary: 'An example', description: 'Found' });
const tool = { title: 'Example', description: 'An example', annotations: {}, text: () => 'example' };
const declareExample = (binding: RestDeclaration) =>
  defineCapability({
    name: 'get_example',
    input: z.strictObject({ id: z.string() }),
    output: z.object({}),
    rest: binding,
    tool,
  });

describe('capabilities', () => {
  it('derive their route: the owning service and verb, the input plus who asks, the output', () => {
    expect(stopMeeting.route.subject).to.equal('svc.meetings.stop');
    expect(stopMeeting.route.reply).to.equal(stopMeeting.output);
    const request = stopMeeting.route.request.parse({ caller: TOKEN, meetingId: 'meeting_1', extra: 1 });
    // A newer caller's extra field is dropped, as on every route; the input's messages are the route's.
    expect(request).to.deep.equal({ caller: TOKEN, meetingId: 'meeting_1' });
    const missing = stopMeeting.route.request.safeParse({ meetingId: 'meeting_1' });
    expect(missing.success, 'a meeting capability names its caller').to.equal(false);
    const empty = stopMeeting.route.request.safeParse({ caller: TOKEN, meetingId: '' });
    expect(empty.error?.issues[0].message).to.equal('meetingId is required');
  });

  it('fill the input schema’s defaults on the route, where the owning service reads them', () => {
    const parsed = startMeeting.route.request.parse({
      caller: TOKEN,
      url: 'https://meet.google.com/abc-defg-hij',
      callbackUrl: null,
    });
    expect(parsed).to.include({ project: 'api', saveTranscript: true, signIn: 'auto', transcription: 'auto' });
    // The bus fields replace the input's: the web's start has no callback; REST's must have one.
    expect(
      startMeeting.input.safeParse({ url: 'https://meet.google.com/abc-defg-hij', callbackUrl: null }).success,
    ).to.equal(false);
  });

  it('of the instance take a request without a caller, from another service', () => {
    expect(runTask.route.request.parse({ name: 'digest' })).to.deep.equal({ name: 'digest' });
    expect(runTask.route.request.parse({ name: 'digest', caller: TOKEN })).to.deep.equal({
      name: 'digest',
      caller: TOKEN,
    });
  });

  it('are listed in the routes table by verb, the same objects', () => {
    expect(routes.meetings.start).to.equal(startMeeting.route);
    expect(routes.meetings.status.subject).to.equal('svc.meetings.status');
    expect(routes.tasks.run).to.equal(runTask.route);
    for (const capability of API_CAPABILITIES) {
      if (!capability.bus) continue;
      const table = routes as unknown as Record<string, Record<string, unknown>>;
      const area = Object.values(table).find((entries) => entries[capability.bus!.verb] === capability.route);
      expect(area, capability.name).to.not.equal(undefined);
    }
  });

  it('have unique names and REST routes, and every path parameter is a field of the input', () => {
    const names = API_CAPABILITIES.map((c) => c.name);
    expect(new Set(names).size).to.equal(names.length);
    const routesOfRest = API_CAPABILITIES.map((c) => `${c.rest.method} ${c.rest.path}`);
    expect(new Set(routesOfRest).size).to.equal(routesOfRest.length);
    for (const capability of API_CAPABILITIES) {
      const shape = (capability.input as unknown as z.ZodObject).shape;
      for (const parameter of pathParameters(capability.rest.path))
        expect(shape, capability.name).to.have.property(parameter);
    }
  });

  it('refuse a path parameter that is no field of the input, when declared', () => {
    expect(() => declareExample(rest('/examples/:name'))).to.throw(
      'get_example: path parameter :name is no field of its input',
    );
  });

  it('list things in a tool’s text: how many, then their names', () => {
    const nameOf = (project: { id: string }) => project.id;
    expect(listed('project', [], nameOf)).to.equal('0 projects');
    expect(listed('project', [{ id: 'api' }], nameOf)).to.equal('1 project: api');
    expect(listed('project', [{ id: 'api' }, { id: 'sales' }], nameOf)).to.equal('2 projects: api, sales');
  });

  it('answer 200 under the tag of their path’s first segment, unless declared otherwise', () => {
    expect(declareExample(rest('/examples/:id/parts')).rest).to.include({ status: 200, tag: 'examples' });
    const declared = declareExample({ ...rest('/examples/:id'), status: 201, tag: 'other' });
    expect(declared.rest).to.include({ status: 201, tag: 'other' });
    expect(runTask.rest).to.include({ path: '/tasks/:name/run', status: 202, tag: 'tasks' });
  });
});
