/**
 * The meeting chat's latency through the whole product (issue #51), per platform: the real stack
 * in this process, the real drivers in real Chromium against the simulated Meet, Teams and Zoom
 * chat panels, the callback receiver a local HTTP server; one clock (performance.now()).
 *
 * - POST /meetings/{id}/chat -> the message in the call: from sending the request to the simulated
 *   meeting receiving the bot's message (its page's send, through the panel's compose box and
 *   send button). One at a time, ROUNDS of them.
 * - A person's message -> its chat_message callback: from the simulated meeting pushing the message
 *   to the bot's page to the receiver holding the signed callback (the panel redrawn, the page's
 *   watcher, the driver, the actor, the webhook emitter).
 *
 * Each platform's page load draws its chat promptly (chatTiming 'prompt'), the rest of its markup
 * at random. `npx tsx test/bench/chat.bench.ts [rounds]` (default 20).
 */
import os from 'node:os';
import type { EventEnvelope } from '@notetaker/contracts';
import { chromiumMissing, startWorld, type World } from '../e2e/support/world.js';
import type { ReceivedCallback } from '../support/callback-receiver.js';
import { chatOf, seedWithChoices, type SimPlatform } from '../simulators/index.js';
import { randomSeed } from '../simulators/markup.js';
import { latencyRow } from './stats.js';

const ROUNDS = Number(process.argv[2] ?? 20);
const PLATFORMS: SimPlatform[] = ['google_meet', 'teams', 'zoom'];

/** `${meetingId} ${text}` -> when the receiver got its chat_message. */
const received = new Map<string, number>();
const waiters = new Set<() => void>();

function onCallback(c: ReceivedCallback): void {
  if (c.eventType !== 'chat_message') return;
  const payload = (c.json as EventEnvelope).payload;
  received.set(`${c.meetingId} ${String(payload.text)}`, c.receivedAt);
  for (const wake of waiters) wake();
}

function callbackOf(key: string, timeoutMs = 20_000): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const at = received.get(key);
      if (at === undefined) return;
      waiters.delete(check);
      clearTimeout(timer);
      resolve(at);
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`no chat_message for ${key} in ${timeoutMs} ms`));
    }, timeoutMs);
    waiters.add(check);
    check();
  });
}

async function measure(world: World, platform: SimPlatform): Promise<void> {
  // A panel that draws as messages come (chatTiming 'prompt'): the simulator's own delay is no part of the figure.
  const markupSeed = seedWithChoices(platform, { chatTiming: 'prompt' }, randomSeed());
  const m = await world.start(platform, { meeting: { lobby: false, markupSeed }, title: `chat bench ${platform}` });
  m.sim.join('Alice Example');
  await m.sim.waitForBot((bot) => bot.screen === 'in_call' && bot.captionsOn, 60_000);
  const chat = chatOf(m.sim);
  // The bot reads the chat once its panel is open: a first message read back says it is.
  chat.post('Alice Example', 'warm-up');
  await callbackOf(`${m.meetingId} warm-up`, 30_000);

  const arrivals = new Map<string, number>();
  const stop = chat.follow((messages) => {
    const last = messages.at(-1);
    if (last?.fromGuest && !arrivals.has(last.text)) arrivals.set(last.text, performance.now());
  });
  const toCall: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const text = `bench message ${i} from the bot`;
    const sent = performance.now();
    const res = await world.t.api(`/meetings/${m.meetingId}/chat`, {
      method: 'POST',
      json: { text },
      apiKey: world.token.apiKey,
    });
    if (res.status !== 202) throw new Error(`POST /chat answered ${res.status}`);
    await chat.until((all) => all.some((x) => x.fromGuest && x.text === text), 20_000);
    toCall.push(arrivals.get(text)! - sent);
    // Its read-back too, so the next post does not overlap this one's.
    await callbackOf(`${m.meetingId} ${text}`);
  }
  stop();

  const toCallback: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const text = `person message ${i}`;
    const shown = performance.now();
    chat.post('Alice Example', text);
    toCallback.push((await callbackOf(`${m.meetingId} ${text}`)) - shown);
  }
  console.log(latencyRow(`${platform}: POST /chat -> the message in the call`, toCall));
  console.log(latencyRow(`${platform}: a person's message -> its chat_message callback`, toCallback));
  await world.stop(m.meetingId);
  await world.waitForStatus(m.meetingId, 'ended', 60_000);
}

const missing = chromiumMissing();
if (missing) {
  console.log(`skipped: ${missing}`);
} else {
  const world = await startWorld({}, { receiver: { onCallback } });
  try {
    console.log(`chat latency, ${ROUNDS} messages each way per platform, one at a time; ${os.cpus().length} CPUs`);
    for (const platform of PLATFORMS) await measure(world, platform);
  } finally {
    await world.close();
  }
}
