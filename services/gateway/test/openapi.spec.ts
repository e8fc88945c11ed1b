/**
 * GET /api/v1/openapi.json: an OpenAPI 3.1 document a client generator can use. Validated by a
 * maintained validator, and equal to the routes the router serves: none missing, none extra.
 */
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { silentLogger } from '@notetaker/kit';
import { apiRouter } from '../src/app.js';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown[]; responses: Record<string, unknown> }>>;
  webhooks: Record<string, unknown>;
};

describe('OpenAPI document', () => {
  let t: TestStack;
  let doc: Doc;
  before(async () => {
    t = await startTestStack();
    const res = await fetch(`${t.baseUrl}/api/v1/openapi.json`); // no key: the document is public
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    doc = (await res.json()) as Doc;
  });
  after(() => t.stop());

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
  });

  it('documents exactly the routes the router serves', () => {
    const served = new Set<string>();
    for (const layer of apiRouter({ bus: t.stack.bus, logger: silentLogger() }).stack) {
      const path = String(layer.path).replace(/:(\w+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method.toLowerCase()} ${path}`);
    }
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)),
    );
    expect([...documented].sort()).to.deep.equal([...served].sort());
    expect(served.size).to.be.at.least(19);
  });

  it('describes bodies, errors, keys and callbacks from the contract schemas', () => {
    const start = doc.paths['/api/v1/meetings/start'].post as unknown as {
      requestBody: { content: { 'application/json': { schema: { required: string[]; additionalProperties: boolean } } } };
      responses: Record<string, unknown>;
    };
    const body = start.requestBody.content['application/json'].schema;
    expect(body.required).to.have.members(['url', 'callbackUrl']);
    expect(body.additionalProperties).to.equal(false);
    expect(Object.keys(start.responses)).to.have.members(['201', '400', '401', '403', '409', '413', '503']);
    expect(doc.paths['/api/v1/openapi.json'].get.security).to.deep.equal([]);
    expect(Object.keys(doc.webhooks)).to.include.members(['meeting_status', 'segment_finalized', 'document_saved']);

    // The events page: its query and body from the same schemas as the route and the get_events tool.
    const events = doc.paths['/api/v1/meetings/{meetingId}/events'].get as unknown as {
      parameters: Array<{ name: string; in: string; required: boolean }>;
      responses: Record<
        string,
        { content?: { 'application/json': { schema: { properties: Record<string, unknown> } } } }
      >;
    };
    expect(events.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).to.deep.equal([
      'path:meetingId:true',
      'query:after:false',
      'query:limit:false',
      'query:types:false',
    ]);
    expect(Object.keys(events.responses)).to.have.members(['200', '400', '401', '404']);
    expect(Object.keys(events.responses['200'].content!['application/json'].schema.properties)).to.deep.equal([
      'meetingId',
      'events',
      'nextAfter',
      'ended',
    ]);
  });
});
