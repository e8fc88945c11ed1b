/**
 * GET /api/v1/openapi.json: an OpenAPI 3.1 document a client generator can use. Validated by a
 * maintained validator; its paths, the routes the router serves and the MCP tools are the
 * operations list's, none missing, none extra.
 */
import { expect } from 'chai';
import { Validator } from '@seriousme/openapi-schema-validator';
import { silentLogger } from '@notetaker/observability';
import { apiRouter } from '../src/app.js';
import { RECORDING_DOWNLOAD } from '../src/http/recording-download.js';
import { openApiPath } from '../src/openapi/document.js';
import { OPERATIONS } from '../src/operations/index.js';
import { connectMcp } from './mcp/clients.js';
import { startTestStack, type TestStack } from '../../../test/support/stack.js';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { requestBody?: unknown; security?: unknown[]; responses: Record<string, unknown> }>
  >;
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

  it('serves, documents and offers as tools exactly the operations list', async () => {
    const fromList = OPERATIONS.map((op) => `${op.rest.method} ${openApiPath(op.rest.path)}`);
    const served = new Set<string>();
    for (const layer of apiRouter({ bus: t.stack.bus, logger: silentLogger() }).stack) {
      const path = `${String(layer.path).replace(/:(\w+)/g, '{$1}')}`;
      for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method.toLowerCase()} ${path}`);
    }
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method} ${path}`)),
    );
    // Beside the list, only the recording download (bytes, not JSON) and the document itself (public, no bus call).
    const beside = [`${RECORDING_DOWNLOAD.method} ${openApiPath(RECORDING_DOWNLOAD.path)}`, 'get /api/v1/openapi.json'];
    const expected = [...fromList, ...beside].sort();
    expect([...served].sort()).to.deep.equal(expected);
    expect([...documented].sort()).to.deep.equal(expected);

    const { apiKey } = await t.createToken();
    const client = await connectMcp(t.baseUrl, 'modern', { apiKey });
    try {
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).to.deep.equal(OPERATIONS.map((op) => op.name).sort());
      for (const op of OPERATIONS) {
        const tool = tools.find((x) => x.name === op.name)!;
        expect(tool.description).to.equal(op.tool.description);
        expect(tool.annotations).to.deep.include(op.tool.annotations);
        const path = doc.paths[openApiPath(op.rest.path)][op.rest.method];
        expect(Object.keys(path.responses)).to.include(String(op.rest.status));
        // A capability a key may lack is documented as the 403 it answers.
        if (op.needs) expect(Object.keys(path.responses)).to.include('403');
      }
    } finally {
      await client.close();
    }
  });

  it('describes bodies, errors, keys and callbacks from the contract schemas', () => {
    const start = doc.paths['/api/v1/meetings/start'].post as unknown as {
      requestBody: {
        content: { 'application/json': { schema: { required: string[]; additionalProperties: boolean } } };
      };
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

  it('describes the recording: the download with its ranges, its metadata with the download URL, its deletion', () => {
    type Described = {
      parameters: Array<{ name: string; in: string; required: boolean }>;
      responses: Record<
        string,
        { headers?: Record<string, unknown>; content?: Record<string, { schema: Record<string, unknown> }> }
      >;
    };
    const item = doc.paths['/api/v1/meetings/{meetingId}/recording'] as unknown as Record<string, Described>;
    expect(Object.keys(item).sort()).to.deep.equal(['delete', 'get']);
    const download = item.get;
    expect(download.parameters.map((p) => `${p.in}:${p.name}:${p.required}`)).to.deep.equal([
      'path:meetingId:true',
      'header:Range:false',
    ]);
    expect(Object.keys(download.responses).sort()).to.deep.equal(['200', '206', '401', '404', '416']);
    for (const status of ['200', '206']) {
      expect(Object.keys(download.responses[status].content!)).to.deep.equal(['audio/ogg']);
      expect(download.responses[status].headers).to.include.keys(
        'Content-Length',
        'Accept-Ranges',
        'X-Recording-Status',
      );
    }
    expect(download.responses['206'].headers).to.include.keys('Content-Range');
    expect(Object.keys(download.responses['416'].content!)).to.deep.equal(['application/json']);
    expect(Object.keys(item.delete.responses).sort()).to.deep.equal(['200', '401', '404', '409']);

    const info = doc.paths['/api/v1/meetings/{meetingId}/recording/info'].get as unknown as Described;
    expect(Object.keys(info.responses).sort()).to.deep.equal(['200', '401', '404']);
    const body = info.responses['200'].content!['application/json'].schema as { properties: Record<string, unknown> };
    expect(Object.keys(body.properties)).to.include.members([
      'status',
      'bytes',
      'durationMs',
      'startedAt',
      'url',
      'downloadUrl',
    ]);
  });
});
