/**
 * The agent loop: the skill's instructions as the system prompt, a short brief as the user turn,
 * then model turn / tool calls until the model answers without calling a tool. Every model request
 * carries the execution's AbortSignal; token usage is added up as it comes, so a run that times out
 * or fails still reports what it spent.
 */
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { AgentTools } from './tools.js';
import { TOOL_DEFINITIONS } from './tools.js';

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** A failure the execution's resultSummary states as it is. */
export class RunError extends Error {}

export interface AgentRun {
  client: OpenAI;
  model: string;
  systemPrompt: string;
  brief: string;
  tools: AgentTools;
  signal: AbortSignal;
  maxIterations: number;
  usage: TokenUsage;
}

export async function runAgent(run: AgentRun): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: run.systemPrompt },
    { role: 'user', content: run.brief },
  ];
  for (let turn = 0; turn < run.maxIterations; turn++) {
    const completion = await run.client.chat.completions.create(
      { model: run.model, messages, tools: TOOL_DEFINITIONS },
      { signal: run.signal },
    );
    run.usage.inputTokens += completion.usage?.prompt_tokens ?? 0;
    run.usage.outputTokens += completion.usage?.completion_tokens ?? 0;
    const message = completion.choices?.[0]?.message;
    if (!message) throw new RunError('The model answered without a message');
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      const answer = (message.content ?? '').trim();
      return answer || '(the model finished without a final answer)';
    }
    messages.push({ role: 'assistant', content: message.content ?? null, tool_calls: calls });
    for (const call of calls) {
      const content =
        call.type === 'function'
          ? await run.tools.call(call.function.name, call.function.arguments)
          : `Error: tool type ${call.type} is not supported`;
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new RunError(`Stopped after ${run.maxIterations} model turns without a final answer (TASKS_MAX_ITERATIONS)`);
}
