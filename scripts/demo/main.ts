/**
 * `npm run demo`: the product at work on this machine alone, for someone without a meeting at
 * hand or without internet. It starts the stack (every service in this process, data in DATA_DIR
 * as `npm start` keeps it) and the project's Google Meet simulator on loopback, makes an API
 * token, and sends a bot into a simulated meeting where two scripted people talk for about a
 * minute. The callbacks go to a receiver on 127.0.0.1 that checks every signature and serves a
 * page showing the meeting live. At the end it prints the saved document's path and what the
 * receiver got, stops everything it started and exits; the document stays in project `demo`.
 *
 * The bot's Chromium reaches the simulator through the simulator's --host-resolver-rules, which
 * resolve every other host to nothing: the demo never reaches the internet. A Notetaker already
 * answering on PORT has bots without those flags (they would go to the real Google Meet), so
 * beside one the demo runs its own on a free port with its store in a temporary folder, saving
 * the document into the same content folder (CONTENT_ROOT, else DATA_DIR).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isTerminalStatus } from '@notetaker/contracts';
import { loadBaseConfig, type BaseConfig } from '@notetaker/config';
import { createLogger } from '@notetaker/observability';
import { startStack, type Stack } from '@notetaker/stack';
import { startSimulator, type Simulator } from '../../test/simulators/index.js';
import { HOST, play, type Step } from './conversation.js';
import { startReceiver, type DemoEvent } from './receiver.js';

const PROJECT = 'demo';
const TITLE = 'Launch check-in';
const began = performance.now();
const say = (line = '') => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** What to undo on the way out, last first. */
const undo: Array<() => unknown> = [];

async function main(): Promise<number> {
  const base = loadBaseConfig();
  say('Notetaker demo: a bot joins a simulated Google Meet on this machine; nothing goes to the internet.');
  const sim = await startSimulator();
  undo.push(() => sim.close());
  const { stack, config, beside } = await startOwnStack(base, sim);
  const api = `http://${base.host === '0.0.0.0' ? '127.0.0.1' : base.host}:${stack.port}`;
  say(
    beside
      ? `Its own Notetaker runs on ${api} (store in a temporary folder).`
      : `Notetaker runs on ${api} (data in ${shown(config.dataDir)}).`,
  );
  if (!(await botsReady(api))) return 1;

  const token = (await stack.admin({ command: 'token.create', name: 'demo', capabilities: ['knowledge:write'] })) as {
    id: string;
    apiKey: string;
    signingSecret: string;
  };
  undo.push(() => stack.admin({ command: 'token.revoke', id: token.id }));
  const rx = await startReceiver(token.signingSecret);
  undo.push(() => rx.close());
  rx.onEvent(tell);

  const code = meetCode();
  const meeting = sim.meeting(code);
  meeting.join(HOST);
  const url = sim.url('google_meet', code);
  const started = await startMeeting(api, token.apiKey, {
    url,
    callbackUrl: rx.callbackUrl,
    project: PROJECT,
    title: TITLE,
  });
  say(
    `A bot is on its way into ${url}, served by the simulator on 127.0.0.1:${sim.port} (meeting ${started.meetingId}).`,
  );
  say();
  say(`Watch the live transcript: ${rx.pageUrl}`);
  say();
  say('What happens in the meeting is in (parentheses); the rest is what the callbacks said:');

  const lobby = await waitForEvent(
    rx.events,
    (e) => e.type === 'meeting_status' && e.payload.status === 'lobby',
    'the bot in the lobby',
  );
  if (lobby.payload.status === 'error') return failed(lobby);
  say(`  (${HOST} lets the bot in)`);
  meeting.admit();
  await meeting.waitForBot((bot) => bot.captionsOn, 60_000);
  await play(meeting, (step: Step) => {
    if ('join' in step) say(`  (${step.join} joins)`);
    if ('leave' in step) say(`  (${step.leave} leaves)`);
  });
  say(`  (${HOST} ends the meeting for everyone)`);
  meeting.end();
  const end = await waitForEvent(
    rx.events,
    (e) => e.type === 'meeting_status' && isTerminalStatus(e.payload.status),
    'the end of the meeting',
  );
  if (end.payload.status !== 'ended') return failed(end);

  const saved = rx.events.filter((e) => e.type === 'document_saved').at(-1);
  const document = path.join(config.contentRoot, String(saved?.payload.documentPath ?? started.documentPath));
  const counts = new Map<string, number>();
  for (const event of rx.events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
  const { valid, invalid } = rx.signatures;
  rx.finish(`The meeting ended. Its document: ${document}`);
  say();
  say(`Document: ${shown(document)}`);
  say(`Callbacks received: ${rx.events.length} events; signatures checked: ${valid} valid, ${invalid} invalid`);
  say(`  ${[...counts].map(([type, n]) => `${type} ${n}`).join(', ')}`);
  if (!beside) say(`To read it in the web app: npm start, then http://127.0.0.1:${base.port}/projects/${PROJECT}`);
  say(`Done in ${Math.round((performance.now() - began) / 1000)} s.`);
  return invalid === 0 ? 0 : 1;
}

/**
 * The stack with the simulator's flags for its bots and loopback callbacks allowed, in-process
 * (a worker elsewhere on NATS would take the bot without the flags). On PORT and DATA_DIR unless
 * a Notetaker answers on PORT or holds DATA_DIR: then on a free port with a temporary store.
 */
async function startOwnStack(
  base: BaseConfig,
  sim: Simulator,
): Promise<{ stack: Stack; config: BaseConfig; beside: boolean }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    BOT_BROWSER_ARGS: JSON.stringify(sim.hostResolverRules()),
    CALLBACK_ALLOW_PRIVATE: 'true',
    NATS_URL: '',
  };
  // The demo says in words what a newcomer needs (a missing browser included); LOG_LEVEL shows more.
  const logger = createLogger({ process: 'stack', level: process.env.LOG_LEVEL ?? 'error' });
  const elsewhere = base.port !== 0 && (await answers(`http://127.0.0.1:${base.port}/readyz`));
  if (!elsewhere) {
    try {
      const config = loadBaseConfig(env);
      const stack = await startStack(config, logger);
      undo.push(() => stack.stop());
      return { stack, config, beside: false };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'store_locked' && code !== 'EADDRINUSE') throw err;
    }
  }
  say(
    `A Notetaker already runs on port ${base.port} or holds ${shown(base.dataDir)}; its bots would go to the real ` +
      'Google Meet, so the demo starts its own beside it.',
  );
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-demo-'));
  undo.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadBaseConfig({ ...env, PORT: '0', DATA_DIR: dataDir, CONTENT_ROOT: base.contentRoot });
  const stack = await startStack(config, logger);
  undo.push(() => stack.stop());
  return { stack, config, beside: true };
}

/** Waits while the bots' browser is being installed; false (having said what to do) when there is none. */
async function botsReady(api: string): Promise<boolean> {
  let told = false;
  for (;;) {
    const { bots } = (await (await fetch(`${api}/readyz`)).json()) as {
      bots?: { available: boolean; installing?: boolean; reason?: string; fix?: string };
    };
    if (!bots || bots.available) return true;
    if (!bots.installing) {
      say(`The bots have no browser: ${bots.reason}.`);
      say(`Fix: ${bots.fix}. Then run npm run demo again.`);
      return false;
    }
    if (!told) say(`No browser for the bots yet: ${bots.reason}; this takes a minute or two.`);
    told = true;
    await sleep(1000);
  }
}

/** POST /meetings/start; a 503 right after the browser was installed is the registry a heartbeat behind. */
async function startMeeting(
  api: string,
  apiKey: string,
  body: Record<string, unknown>,
): Promise<{ meetingId: string; documentPath: string }> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${api}/api/v1/meetings/start`, {
      method: 'POST',
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { meetingId: string; documentPath: string; error?: string };
    if (res.status === 201) return answer;
    if (res.status !== 503 || attempt === 20) throw new Error(`the start answered ${res.status}: ${answer.error}`);
    await sleep(500);
  }
}

function failed(status: DemoEvent): number {
  say(`The bot did not make it: ${String(status.payload.status)} (${String(status.payload.reason)}).`);
  return 1;
}

/** The first event received that passes `test`, within a minute; a failure of the bot ends the wait too. */
async function waitForEvent(events: DemoEvent[], test: (e: DemoEvent) => boolean, what: string): Promise<DemoEvent> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const found = events.find(test) ?? events.find((e) => e.type === 'meeting_status' && e.payload.status === 'error');
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no sign of ${what} within a minute`);
    await sleep(100);
  }
}

/** Each event the receiver gets, as a line on the terminal (partial captions only on the page). */
function tell(event: DemoEvent): void {
  const p = event.payload;
  if (event.type === 'meeting_status') say(`  [bot ${p.status}${p.reason ? `: ${String(p.reason)}` : ''}]`);
  if (event.type === 'participant_joined') say(`  [${String(p.name)} is in the meeting]`);
  if (event.type === 'participant_left') say(`  [${String(p.name)} left]`);
  if (event.type === 'segment_finalized') say(`  ${String(p.speaker)}: ${String(p.text)}`);
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/** A fresh Meet code, abc-defg-hij. */
function meetCode(): string {
  const letters = (n: number) =>
    Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('');
  return `${letters(3)}-${letters(4)}-${letters(3)}`;
}

/** A path under the current folder as a relative one (what a newcomer types), else as is. */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? `.${path.sep}${relative}` : file;
}

async function finish(code: number): Promise<never> {
  for (const step of undo.reverse()) await Promise.resolve(step()).catch(() => {});
  process.exit(code);
}

process.once('SIGINT', () => void finish(130));
process.once('SIGTERM', () => void finish(143));
main().then(finish, async (err: unknown) => {
  say(`The demo failed: ${err instanceof Error ? err.message : String(err)}`);
  await finish(1);
});
