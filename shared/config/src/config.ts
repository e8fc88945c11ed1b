/**
 * Configuration from the environment, validated by zod. One error lists every bad variable, so an
 * operator fixes them all in one go instead of one per restart.
 */
import path from 'node:path';
import { z } from 'zod';
import { envString } from './env-fields.js';

export const baseEnvSchema = z.object({
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  CONTENT_ROOT: envString,
  SKILLS_DIR: z.string().default('./skills'),
  NATS_URL: envString,
  MONGODB_URL: envString,
  LLM_BASE_URL: envString,
  LLM_API_KEY: envString,
  LLM_MODEL: envString,
  SECRETS_KEY: envString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type BaseConfig = ReturnType<typeof resolveBase>;

function resolveBase(env: z.infer<typeof baseEnvSchema>, raw: NodeJS.ProcessEnv) {
  const dataDir = path.resolve(env.DATA_DIR);
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir,
    contentRoot: path.resolve(env.CONTENT_ROOT ?? dataDir),
    skillsDir: path.resolve(env.SKILLS_DIR),
    natsUrl: env.NATS_URL,
    mongodbUrl: env.MONGODB_URL,
    llm: { baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY, model: env.LLM_MODEL },
    secretsKey: env.SECRETS_KEY,
    logLevel: env.LOG_LEVEL,
    /** The environment this config came from: a service parses its own variables from it with parseEnv. */
    env: raw,
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `env` with any zod object schema; throws one ConfigError naming every bad variable. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
  throw new ConfigError(problems);
}

export function loadBaseConfig(env: NodeJS.ProcessEnv = process.env): BaseConfig {
  return resolveBase(parseEnv(baseEnvSchema, env), env);
}
