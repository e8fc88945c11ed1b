/**
 * Runs one execution's skill: checks the model configuration, loads the skill, builds the brief
 * and runs the agent loop. Returns the final answer, or throws an error whose message is fit for
 * the execution's resultSummary (never the API key).
 */
import OpenAI from 'openai';
import type { Bus } from '@notetaker/bus';
import { PROJECT_ID } from '@notetaker/contracts';
import type { TaskSnapshot } from '../records.js';
import { SkillCache, SkillError } from '../skills.js';
import { RunError, runAgent, type TokenUsage } from './agent.js';
import { AgentTools } from './tools.js';

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

export interface SkillRunnerOptions {
  bus: Bus;
  llm: LlmSettings;
  skills: SkillCache;
  contentRoot: string;
  maxIterations: number;
  llmMaxRetries: number;
}

/** Which variables are missing for a usable model: LLM_MODEL, and an endpoint or a key. */
export function missingLlmVariables(llm: LlmSettings): string[] {
  const missing: string[] = [];
  if (!llm.model) missing.push('LLM_MODEL');
  if (!llm.baseUrl && !llm.apiKey) missing.push('LLM_BASE_URL (or LLM_API_KEY for the default OpenAI endpoint)');
  return missing;
}

/** Tasks carry no parameters (SPEC 2.5): a task named `<anything>.<projectId>` is about that project. */
export function projectScope(taskName: string): string | null {
  const dot = taskName.lastIndexOf('.');
  if (dot < 0) return null;
  const suffix = taskName.slice(dot + 1);
  return PROJECT_ID.test(suffix) ? suffix : null;
}

export function briefFor(task: TaskSnapshot, now: Date): string {
  const scope = projectScope(task.name);
  return [
    `Task: ${task.name}`,
    `Current time: ${now.toISOString()} (UTC)`,
    scope
      ? `Project: ${scope} (from the task name). Work on this project only.`
      : 'Project: none named by the task; work across all projects as your instructions say.',
    'Use the tools to read what you need. When you are done, answer with a short summary of what you did and found: it is stored as the result of this run.',
  ].join('\n');
}

export class SkillRunner {
  private readonly client: OpenAI | null;

  constructor(private readonly options: SkillRunnerOptions) {
    const { llm } = options;
    this.client =
      missingLlmVariables(llm).length === 0
        ? new OpenAI({
            baseURL: llm.baseUrl,
            // Local OpenAI-compatible servers take no key; the client still wants a string.
            apiKey: llm.apiKey ?? 'not-needed',
            maxRetries: options.llmMaxRetries,
            timeout: 10 * 60 * 1000,
          })
        : null;
  }

  async run(task: TaskSnapshot, signal: AbortSignal, usage: TokenUsage): Promise<string> {
    const missing = missingLlmVariables(this.options.llm);
    if (!this.client || missing.length > 0) {
      throw new RunError(`No language model is configured: set ${missing.join(' and ')}`);
    }
    const skill = await this.options.skills.load(task.skillName);
    const tools = new AgentTools({ bus: this.options.bus, contentRoot: this.options.contentRoot, signal });
    try {
      return await runAgent({
        client: this.client,
        model: this.options.llm.model as string,
        systemPrompt: skill.instructions,
        brief: briefFor(task, new Date()),
        tools,
        signal,
        maxIterations: this.options.maxIterations,
        usage,
      });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw describeModelError(err);
    }
  }
}

/** The model endpoint's failure in words (status and its own message), without request details. */
function describeModelError(err: unknown): Error {
  if (err instanceof RunError || err instanceof SkillError) return err;
  if (err instanceof OpenAI.APIConnectionError) {
    return new RunError(`The model endpoint could not be reached: ${err.message}`);
  }
  if (err instanceof OpenAI.APIError) {
    const detail = err.message.replace(/\s+/g, ' ').slice(0, 500);
    return new RunError(`The model endpoint answered ${err.status ?? 'an error'}: ${detail}`);
  }
  return new RunError(`The run failed: ${(err as Error)?.message ?? String(err)}`);
}
