/**
 * An OpenAI-compatible engine's base URL from the environment (STT_BASE_URL, TTS_BASE_URL): http(s), with the
 * API version (`https://api.openai.com/v1`), no credentials in it (fetch would name them in its
 * errors, then logs), no query or fragment (a path follows it). Unset or empty: no engine.
 */
import { z } from 'zod';

export function engineBaseUrl(keyVariable: string, path: string) {
  return z
    .string()
    .trim()
    .optional()
    .transform((raw, ctx) => {
      if (!raw) return undefined;
      let url: URL | null = null;
      try {
        url = new URL(raw);
      } catch {
        /* reported below */
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        ctx.addIssue({ code: 'custom', message: 'must be an http(s) URL such as https://api.openai.com/v1' });
        return z.NEVER;
      }
      if (url.username || url.password) {
        ctx.addIssue({
          code: 'custom',
          message: `must not hold credentials (user:password@): put the key in ${keyVariable}`,
        });
        return z.NEVER;
      }
      if (url.search || url.hash) {
        ctx.addIssue({
          code: 'custom',
          message: `must not have a query or fragment (requests go to <base>${path}): put a key in ${keyVariable}`,
        });
        return z.NEVER;
      }
      return raw.replace(/\/+$/, '');
    });
}
