/**
 * Runs one execution's skill: checks the model configuration, loads the skill, builds the brief
 * and runs the agent loop. Returns the final answer, or throws an error whose message is fit for
 * the execution's resultSummary (never the API key).
 */
import type { Bus } from '@notetaker/bus';
import { createLlmClient, describeLlmError, missingLlmVariables, type LlmSettings, type OpenAI } from '@notetaker/llm';
import { PROJECT_ID } from '@notetaker/contracts';
import type { TaskSnapshot } from '../records.js';
import { SkillCache, SkillError } from '../skills.js';
import { RunError, runAgent, type TokenUsage } from './agent.js';
import { AgentTools } from './tools.js';

export interface SkillRunnerOptions {
  bus: Bus;
  llm: LlmSettings;
  skills: SkillCache;
  contentRoot: string;
  maxIterations: number;
  llmMaxRetries: number;
}

/** Tasks carry no parameters: a task named `<anything>.<projectId>` is about that project. */
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
    this.client = createLlmClient(options.llm, { maxRetries: options.llmMaxRetries, timeoutMs: 10 * 60 * 1000 });
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
  return new RunError(describeLlmError(err) ?? `The run failed: ${(err as Error)?.message ?? String(err)}`);
}
