/** The /mcp endpoint's own environment variables (durations in ms so tests can shrink them). */
import { z } from 'zod';
import { envInt, envMs, parseEnv } from '@notetaker/config';

export const mcpEnvSchema = z.object({
  /**
   * Browser origins allowed to call /mcp, comma-separated (`https://app.example.com`). A request
   * with any other Origin is refused (DNS rebinding); requests without one (server-side clients) pass.
   */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  /** A 2025-era session with no request and no open stream for this long ends. */
  MCP_SESSION_IDLE_MS: envMs(30 * 60_000),
  /** Open 2025-era sessions one API key may hold at once. */
  MCP_MAX_SESSIONS_PER_KEY: envInt(16, 1, 10_000),
});

export interface McpConfig {
  allowedOrigins: Set<string>;
  sessionIdleMs: number;
  maxSessionsPerKey: number;
}

export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const e = parseEnv(mcpEnvSchema, env);
  const origins = e.MCP_ALLOWED_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean)
    .map(normalOrigin);
  return {
    allowedOrigins: new Set(origins),
    sessionIdleMs: e.MCP_SESSION_IDLE_MS,
    maxSessionsPerKey: e.MCP_MAX_SESSIONS_PER_KEY,
  };
}

/** `scheme://host[:port]` in URL's own spelling (lowercase host, default port dropped); null if not one. */
export function normalOrigin(value: string): string {
  try {
    const origin = new URL(value).origin;
    return origin === 'null' ? value : origin;
  } catch {
    return value;
  }
}
