/**
 * A real OpenAI-compatible Chat Completions server on 127.0.0.1 for tests and benchmarks. A test
 * scripts what each request gets: tool calls, a final answer, token usage, a delay (slowness), or
 * an HTTP failure. Every request body is kept, so a test can read what the agent sent (system
 * prompt, tools, tool results). A client that goes away before a slow answer is counted in
 * `aborted`: that is how a test sees an AbortSignal reach the model request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeToolCall {
  name: string;
  arguments: unknown;
  id?: string;
}

export interface FakeStep {
  /** Tool calls to make (finish_reason `tool_calls`). */
  toolCalls?: FakeToolCall[];
  /** Assistant text (the final answer when there are no tool calls). */
  answer?: string;
  usage?: { prompt: number; completion: number };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Fail with this HTTP status and an OpenAI-style error body. */
  status?: number;
  error?: string;
}

export interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: Array<{ type: string; function: { name: string } }>;
  /** Structured output asked for: `{type: 'json_schema', json_schema: {name, schema, strict}}`. */
  response_format?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
  max_tokens?: number;
  authorization: string | undefined;
}

export interface FakeLlm {
  /** Base URL for LLM_BASE_URL (ends in /v1). */
  url: string;
  model: string;
  apiKey: string;
  requests: ChatRequest[];
  /** Requests whose client hung up before the (delayed) answer was sent. */
  aborted: number;
  /** Replaces the queue of steps; each request takes the next one. */
  script(steps: FakeStep[]): void;
  /** Answers every request with `fn` (request, 0-based index) once the script is used up. */
  respond(fn: (request: ChatRequest, index: number) => FakeStep): void;
  /** LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

function completion(model: string, step: FakeStep, index: number) {
  const calls = (step.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${index}_${i}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  }));
  const usage = step.usage ?? { prompt: 0, completion: 0 };
  return {
    id: `chatcmpl-fake-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.answer ?? null,
          refusal: null,
          ...(calls.length > 0 && { tool_calls: calls }),
        },
        finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  };
}

export interface FakeLlmOptions {
  model?: string;
  apiKey?: string;
  /** Keep every request body in `requests` (default true; a benchmark sending thousands turns it off). */
  record?: boolean;
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const model = options.model ?? 'fake-model';
  const apiKey = options.apiKey ?? 'sk-fake-llm-key';
  let queue: FakeStep[] = [];
  let served = 0;
  let responder: (request: ChatRequest, index: number) => FakeStep = () => ({
    status: 500,
    error: 'fake LLM: no step scripted for this request',
  });

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.destroyed) return;
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        return send(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
      }
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return send(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      let body: Omit<ChatRequest, 'authorization'>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, { error: { message: 'body is not JSON' } });
      }
      const request: ChatRequest = { ...body, authorization: req.headers.authorization };
      // The request's position in `requests` (which a test may empty between cases).
      const index = options.record === false ? served++ : fake.requests.push(request) - 1;
      const step = queue.shift() ?? responder(request, index);
      const answer = () => {
        if (step.status) {
          return send(res, step.status, { error: { message: step.error ?? 'fake failure', type: 'server_error' } });
        }
        send(res, 200, completion(body.model, step, index));
      };
      if (!step.delayMs) return answer();
      const timer = setTimeout(answer, step.delayMs);
      res.on('close', () => {
        if (!res.writableFinished) {
          clearTimeout(timer);
          fake.aborted++;
        }
      });
    });
  });
  // Long enough for clients to reuse connections (undici keeps one only when the hint is over 1 s).
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeLlm = {
    url: `http://127.0.0.1:${port}/v1`,
    model,
    apiKey,
    requests: [],
    aborted: 0,
    script(steps) {
      queue = [...steps];
    },
    respond(fn) {
      responder = fn;
    },
    env() {
      return { LLM_BASE_URL: fake.url, LLM_API_KEY: apiKey, LLM_MODEL: model };
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return fake;
}
