/**
 * The OpenAPI 3.1 document of the REST interface (GET /api/v1/openapi.json), generated from the
 * operations list (operations/index.ts) and the contract's zod schemas: request bodies and queries as the
 * handlers validate them (input side), responses as they answer (output side), the `{error}`
 * body, the API key schemes, and the callback events as webhooks. Built once, on first request.
 */
import { z } from 'zod';
import {
  CALLBACK_HEADERS,
  EVENT_TYPES,
  errorBody,
  eventEnvelope,
  getRecording,
  NO_AUDIO_YET,
  NO_RECORDING,
  NOT_OWNED,
  pathParameters,
  RECORDING_FAILED,
  RECORDING_STATES,
} from '@notetaker/contracts';
import { RECORDING_DOWNLOAD } from '../http/recording-download.js';
import { restInput } from '../http/rest-routes.js';
import { OPERATIONS } from '../operations/index.js';
import type { Method, Operation } from '../operations/operation.js';

type Json = Record<string, unknown>;

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid input; the message names the field',
  401: 'Missing, unknown or revoked API key',
};

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Json {
  // Refinements (an http(s) URL, a known time zone) are checked by the server, not expressible here.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

const json = (schema: Json) => ({ 'application/json': { schema } });
const errorResponse = (description: string) => ({
  description,
  content: json({ $ref: '#/components/schemas/Error' }),
});

/**
 * A path's operation as OpenAPI states it; `params`: the schema whose fields its path parameters
 * are (the operation's input); `public`: served without a key (only this document).
 */
interface PathEntry {
  method: Method;
  path: string;
  params?: z.ZodType;
  tag: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  success: { status: number; description: string; schema?: z.ZodType; markdown?: true; audio?: true };
  errors?: Record<string, string>;
  public?: true;
}

function entryOf(op: Operation): PathEntry {
  const { rest } = op;
  const input = restInput(op);
  return {
    method: rest.method,
    path: rest.path,
    params: op.input,
    tag: rest.tag,
    summary: rest.summary,
    ...(input && { [input.in]: input.schema }),
    success: {
      status: rest.status,
      description: rest.description,
      ...(rest.markdown ? { markdown: true as const } : { schema: op.output }),
    },
    errors: op.errors,
  };
}

/** The document itself: not a capability (no bus call), the one route without a key. */
const DOCUMENT_ENTRY: PathEntry = {
  method: 'get',
  path: '/openapi.json',
  tag: 'meta',
  summary: 'This document',
  success: { status: 200, description: 'OpenAPI 3.1' },
  public: true,
};

/**
 * The recording download (http/recording-download.ts): bytes, not JSON, so not an operation of the
 * list; served beside its routes and described here with its ranges.
 */
const RECORDING_ENTRY: PathEntry = {
  method: RECORDING_DOWNLOAD.method,
  path: RECORDING_DOWNLOAD.path,
  // The meeting as get_recording names it.
  params: getRecording.input,
  tag: 'meetings',
  summary:
    "The meeting's audio recording (Ogg Opus), streamed, with HTTP ranges; while it is still recording, what is stored so far",
  success: {
    status: 200,
    description:
      'The whole file (also the answer to several ranges, or a Range with If-Range); an incomplete one as it is ' +
      '(its gaps are in /recording/info); while it is still recording (the meeting is live, or its audio is still ' +
      'being stored after it ended), what was stored when the request came, with X-Recording-Status: recording',
    audio: true,
  },
  errors: {
    404: `${NOT_OWNED}; or ${NO_RECORDING}; or ${NO_AUDIO_YET}; or ${RECORDING_FAILED}`,
    416: 'The range starts past the end of the file (Content-Range: bytes */size)',
  },
};

const AUDIO_HEADERS: Json = {
  'Content-Length': { schema: { type: 'integer' }, description: 'The bytes in this answer' },
  'Accept-Ranges': { schema: { const: 'bytes' } },
  'X-Recording-Status': {
    schema: { enum: RECORDING_STATES.filter((state) => state !== 'failed') },
    description:
      'recording: the file still grows (the meeting is live, or its audio is still being stored after it ended); ' +
      'saved: complete; incomplete: complete with parts of the meeting missing (gaps in /recording/info)',
  },
  'Content-Disposition': { schema: { type: 'string' }, description: 'inline; filename="<meetingId>.ogg"' },
};
const audioContent = { 'audio/ogg': { schema: { type: 'string', contentMediaType: 'audio/ogg' } } };

/** The 200 and 206 of a download of the recording, and its Range header. */
function audioResponses(description: string): Json {
  return {
    200: { description, headers: AUDIO_HEADERS, content: audioContent },
    206: {
      description: 'The one range asked for (bytes=a-b, bytes=a-, bytes=-n)',
      headers: {
        ...AUDIO_HEADERS,
        'Content-Range': { schema: { type: 'string' }, description: 'bytes first-last/size' },
      },
      content: audioContent,
    },
  };
}

const RANGE_PARAMETER: Json = {
  name: 'Range',
  in: 'header',
  required: false,
  description: 'One byte range: bytes=0-1023, bytes=1024- or bytes=-4096 (several ranges answer the whole file)',
  schema: { type: 'string' },
};

/** A path parameter as its field of the input declares it, the field's description lifted to the parameter. */
function pathParameter(op: PathEntry, name: string): Json {
  const field = (op.params as { shape?: Record<string, z.ZodType> } | undefined)?.shape?.[name];
  if (!field) throw new Error(`${op.method} ${op.path}: path parameter :${name} is no field of its input`);
  const { description, ...schema } = schemaOf(field, 'input');
  return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
}

function operationObject(op: PathEntry): Json {
  const parameters: Json[] = pathParameters(op.path).map((name) => pathParameter(op, name));
  if (op.query) {
    const query = schemaOf(op.query, 'input') as { properties: Record<string, Json>; required?: string[] };
    for (const [name, schema] of Object.entries(query.properties)) {
      parameters.push({ name, in: 'query', required: query.required?.includes(name) ?? false, schema });
    }
  }
  const { success } = op;
  if (success.audio) parameters.push(RANGE_PARAMETER);
  const responses: Json = success.audio
    ? audioResponses(success.description)
    : {
        [success.status]: {
          description: success.description,
          ...(success.markdown
            ? {
                headers: {
                  'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename=…' },
                },
                content: { 'text/markdown': { schema: { type: 'string' } } },
              }
            : success.schema
              ? { content: json(schemaOf(success.schema, 'output')) }
              : {}),
        },
      };
  if (op.body || op.query) responses[400] = errorResponse(ERROR_TEXT[400]);
  if (!op.public) responses[401] = errorResponse(ERROR_TEXT[401]);
  for (const [status, description] of Object.entries(op.errors ?? {})) responses[status] = errorResponse(description);
  return {
    operationId: operationId(op),
    summary: op.summary,
    tags: [op.tag],
    ...(op.public ? { security: [] } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: json(schemaOf(op.body, 'input')) } } : {}),
    responses,
  };
}

/** `post /tasks/:name/run` -> `post_tasks_name_run`: stable and unique. */
function operationId(op: PathEntry): string {
  return `${op.method}${op.path.replace(/[/:.]+/g, '_')}`;
}

/** Koa's `/tasks/:name` as OpenAPI's `/api/v1/tasks/{name}`. */
export function openApiPath(koaPath: string): string {
  return `/api/v1${koaPath.replace(/:(\w+)/g, '{$1}')}`;
}

function callbackWebhooks(): Json {
  const headers = [
    {
      name: CALLBACK_HEADERS.signature,
      description: 'sha256=<hex HMAC-SHA256 of the raw body under the signing secret>',
    },
    { name: CALLBACK_HEADERS.event, description: 'The event type' },
    { name: CALLBACK_HEADERS.meetingId, description: 'The meeting' },
    { name: CALLBACK_HEADERS.eventId, description: 'Stable per event: deduplicate retries with it' },
    { name: CALLBACK_HEADERS.deliveryId, description: 'Per attempt' },
    { name: CALLBACK_HEADERS.timestamp, description: 'When the attempt was sent' },
  ].map((h) => ({ ...h, in: 'header', required: true, schema: { type: 'string' } }));
  const envelope = schemaOf(eventEnvelope, 'output');
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: `${type}, POSTed to the meeting's callbackUrl, in sequence order per meeting`,
          parameters: headers,
          requestBody: {
            required: true,
            content: json({ ...envelope, properties: { ...(envelope.properties as Json), type: { const: type } } }),
          },
          responses: { '200': { description: 'Any 2xx acknowledges; anything else is retried' } },
        },
      },
    ]),
  );
}

let built: Json | null = null;

export function openApiDocument(): Json {
  if (built) return built;
  const paths: Record<string, Json> = {};
  const entries = [...OPERATIONS.map(entryOf), RECORDING_ENTRY, DOCUMENT_ENTRY];
  for (const op of entries) (paths[openApiPath(op.path)] ??= {})[op.method] = operationObject(op);
  // The capabilities' tags by name, then the document's own.
  const tags = [...new Set(entries.filter((op) => !op.public).map((op) => op.tag))].sort();
  built = {
    openapi: '3.1.0',
    info: {
      title: 'Notetaker REST API',
      version: '1.0.0',
      description:
        'Meeting bots for Google Meet and Microsoft Teams, transcripts saved in projects, search, and AI tasks. Every error is {error: string}.',
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [...tags, DOCUMENT_ENTRY.tag].map((name) => ({ name })),
    paths,
    webhooks: callbackWebhooks(),
    components: {
      schemas: { Error: schemaOf(errorBody, 'output') },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'sk_… API key' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same sk_… key as a Bearer token' },
      },
    },
  };
  return built;
}
