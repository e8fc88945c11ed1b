/**
 * The OpenAI-compatible model client every part that calls a model shares (the task runner, the
 * meeting coach), configured by LLM_BASE_URL, LLM_API_KEY and LLM_MODEL (the base config's `llm`).
 * It is a package of its own so that services that call no model never load the openai package
 * (about 150 ms of start-up).
 */
import OpenAI from 'openai';

export { OpenAI };
export { zodResponseFormat } from 'openai/helpers/zod';

export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

/** Which variables are missing for a usable model: LLM_MODEL, and an endpoint or a key. */
export function missingLlmVariables(llm: LlmSettings): string[] {
  const missing: string[] = [];
  if (!llm.model) missing.push('LLM_MODEL');
  if (!llm.baseUrl && !llm.apiKey) missing.push('LLM_BASE_URL (or LLM_API_KEY for the default OpenAI endpoint)');
  return missing;
}

/** The client for `llm`, or null when the configuration is incomplete (see missingLlmVariables). */
export function createLlmClient(llm: LlmSettings, options: { maxRetries: number; timeoutMs: number }): OpenAI | null {
  if (missingLlmVariables(llm).length > 0) return null;
  return new OpenAI({
    baseURL: llm.baseUrl,
    // Local OpenAI-compatible servers take no key; the client still wants a string.
    apiKey: llm.apiKey ?? 'not-needed',
    maxRetries: options.maxRetries,
    timeout: options.timeoutMs,
  });
}

/**
 * The model endpoint's failure in words (its status and its own message), without request details
 * or the key; null when `err` is not the endpoint's (a bug of ours, an abort).
 */
export function describeLlmError(err: unknown): string | null {
  if (err instanceof OpenAI.APIConnectionError) return `The model endpoint could not be reached: ${err.message}`;
  if (err instanceof OpenAI.APIError) {
    const detail = err.message.replace(/\s+/g, ' ').slice(0, 500);
    return `The model endpoint answered ${err.status ?? 'an error'}: ${detail}`;
  }
  return null;
}
