/**
 * JSON logs (pino). Secrets are redacted by key name wherever they appear in a logged object, so
 * a careless `log.info({ req })` cannot leak an API key, a signing secret or a password; and every
 * URL in a line, whatever field or message holds it (an error's text names the URL it failed on),
 * loses its credentials and secret parameters (redact.ts).
 */
import { pino, type Logger } from 'pino';
import { REDACTED, redactUrls } from './redact.js';

export type { Logger };

const SECRET_KEYS = [
  'apiKey',
  'api_key',
  'signingSecret',
  'password',
  'passwordHash',
  'secret',
  'token',
  'authorization',
  'cookie',
  'x-api-key',
  'csrfToken',
  'sessionToken',
  // Every secret setting of every service, by its variable and by its name in the parsed config.
  'LLM_API_KEY',
  'SECRETS_KEY',
  'secretsKey',
  'STT_API_KEY',
  'RECORDINGS_S3_SECRET_ACCESS_KEY',
  'secretAccessKey',
  // A bot account's storage state (and the session file it came from) signs in as that account;
  // `session` is its name on the bus and in the store.
  'session',
  'sessionText',
  'storageState',
  'storageStateText',
  'cookies',
  'localStorage',
];

const REDACT_PATHS = SECRET_KEYS.flatMap((key) => {
  const k = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  const dot = k.startsWith('[') ? k : `.${k}`;
  return [k, `*${dot}`, `*.*${dot}`, `req.headers${dot}`];
});

/**
 * A process's root logger. A service running alone names itself (`service`); the one-process
 * stack names itself as `process` instead and each service's child logger adds `service`, so
 * every line holds each key once (log stores such as Elasticsearch reject or drop a line with a
 * key twice).
 */
export function createLogger(
  options: ({ service: string; process?: never } | { process: string; service?: never }) & {
    level?: string;
    destination?: NodeJS.WritableStream;
  },
): Logger {
  const settings = {
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    base: options.service !== undefined ? { service: options.service } : { process: options.process },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    // The whole line, once written: a URL's secrets go wherever in it the URL is.
    hooks: { streamWrite: redactUrls },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

/** A logger that writes nothing: tests and benchmarks. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
