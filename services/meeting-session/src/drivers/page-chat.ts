/**
 * The page driver's side of the meeting's chat (issue #51): the panel kept open while the bot is
 * in the call (it must be open for messages to render on every platform), each message reported
 * once and in order (ChatLog), and the bot's own messages posted one at a time: the compose box
 * focused, the text inserted, the send button pressed (or Enter), then the message awaited in the
 * panel, where it is read like anyone's (fromBot). A message that does not show is a failure
 * with its reason, for the caller's chat_failed warning.
 *
 * Opening the panel leaves captions alone on every platform (the caption area is apart from the
 * side panel); the page driver keeps captions on in any case (tendCall).
 */
import type { Frame, Page } from 'puppeteer-core';
import type { ChatMessage, Platform } from '@notetaker/contracts';
import { ChatLog } from './chat-log.js';
import type { ChatSelectors } from './chat/selectors.js';
import { meetChat } from './google-meet/chat.js';
import { teamsChat } from './teams/chat.js';
import { zoomChat } from './zoom/chat.js';
import { bindPage } from './page-bindings.js';
import { CHAT_BINDING, chatProgram, type ChatPanelState, type ChatRow } from './page-scripts/chat-panel.js';
import { sleep, withTimeout } from './page-answer.js';

const SELECTORS: Record<Platform, ChatSelectors> = { google_meet: meetChat, teams: teamsChat, zoom: zoomChat };

/** How often the panel is checked (open, watched); messages themselves arrive as the page sees them. */
const TEND_MS = 1_000;
/** How long a message may take to show in the panel once sent. */
const SHOW_TIMEOUT_MS = 10_000;
/** How long the compose box may take to appear (the panel opening). */
const COMPOSE_TIMEOUT_MS = 8_000;
const EVALUATE_TIMEOUT_MS = 5_000;

export class ChatSendError extends Error {}

export class PageChat {
  private readonly log = new ChatLog();
  private readonly script: ReturnType<typeof chatProgram>;
  private readonly selectors: ChatSelectors;
  private page: Page | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private lastOpen = 0;
  /** Posts one at a time, in the order asked. */
  private sending: Promise<unknown> = Promise.resolve();
  /** Texts posted and not yet seen in the panel, with who waits for each. */
  private readonly awaited: Array<{ text: string; seen: () => void }> = [];

  constructor(
    platform: Platform,
    /** The name the platform shows for the bot (its own messages are reported under it). */
    private readonly displayName: () => string,
    /** The listener's chat callback while the bot is live in the call, else null. */
    private readonly live: () => ((message: ChatMessage) => void) | null,
    private readonly frameOf: (page: Page) => Promise<Frame>,
    private readonly clock: () => number = Date.now,
  ) {
    this.selectors = SELECTORS[platform];
    this.script = chatProgram(this.selectors);
  }

  /** Before the page opens anything: the binding the page's watcher reports through. */
  async install(page: Page): Promise<void> {
    await bindPage(page, { [CHAT_BINDING]: (json) => this.reported(json) }, () => {});
    // A page loaded again watches afresh, counting from 1.
    page.on('load', () => this.log.restarted());
  }

  /** In the call: the panel is opened and watched from now on. */
  start(page: Page): void {
    if (this.timer || this.stopped) return;
    this.page = page;
    void this.tend();
    this.timer = setInterval(() => void this.tend(), TEND_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const waiter of this.awaited.splice(0)) waiter.seen();
  }

  /** Posts `text` after the messages asked before it; rejects with the reason it could not be sent. */
  send(text: string): Promise<void> {
    const run = this.sending.then(() => this.post(text));
    this.sending = run.catch(() => undefined);
    return run;
  }

  private async post(text: string): Promise<void> {
    const page = this.page;
    if (!page || this.stopped) throw new ChatSendError('the bot is not in the call');
    const until = this.clock() + COMPOSE_TIMEOUT_MS;
    let focused = false;
    while (!focused && this.clock() < until && !this.stopped) {
      const answer = await this.run<string>(page, 'focus').catch(() => 'none');
      focused = answer === 'focused';
      if (focused) break;
      if (answer === 'closed') await this.run(page, 'open').catch(() => false);
      await sleep(200);
    }
    if (!focused) throw new ChatSendError('the chat compose box could not be found');
    const shown = this.awaitShown(text);
    await page.keyboard.sendCharacter(text);
    const pressed = await this.run<boolean>(page, 'send').catch(() => false);
    if (!pressed) await page.keyboard.press('Enter');
    if (!(await shown)) throw new ChatSendError('the message did not show in the chat after it was sent');
  }

  /** Resolves true once the bot's message with this text shows in the panel, false after SHOW_TIMEOUT_MS. */
  private awaitShown(text: string): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter = {
        text: normalize(text),
        seen: () => {
          clearTimeout(timer);
          resolve(!this.stopped);
        },
      };
      const timer = setTimeout(() => {
        const at = this.awaited.indexOf(waiter);
        if (at >= 0) this.awaited.splice(at, 1);
        resolve(false);
      }, SHOW_TIMEOUT_MS);
      this.awaited.push(waiter);
    });
  }

  /** Keeps the panel open and watched: a build that closes it (a pop-up, a reload) gets it opened again. */
  private async tend(): Promise<void> {
    const page = this.page;
    if (!page || this.stopped) return;
    const state = await this.run<ChatPanelState>(page, 'ensure').catch(() => null);
    if (!state || state.open || this.stopped) return;
    const now = this.clock();
    if (now - this.lastOpen < 2 * TEND_MS) return;
    this.lastOpen = now;
    await this.run(page, 'open').catch(() => false);
  }

  private reported(json: string): void {
    const report = JSON.parse(json) as { seq: number; items: ChatRow[] };
    const emit = this.live();
    if (!emit || this.stopped) return;
    for (const row of this.log.take(report.seq, report.items)) {
      const fromBot = this.isBot(row);
      if (fromBot) this.seenOwn(row.text);
      emit({
        sender: fromBot ? this.displayName() : row.sender,
        text: row.text,
        timestamp: new Date(this.clock()).toISOString(),
        fromBot,
      });
    }
  }

  private isBot(row: ChatRow): boolean {
    const sender = row.sender.trim();
    const name = this.displayName();
    if (this.selectors.self.test(sender) || sender === name) return true;
    // "<name> (You)", "<name> (me)": the platform's own mark on the bot's name.
    return sender.startsWith(name) && /\((you|me)\)$/i.test(sender);
  }

  private seenOwn(text: string): void {
    const at = this.awaited.findIndex((waiter) => waiter.text === normalize(text));
    if (at >= 0) this.awaited.splice(at, 1)[0].seen();
  }

  private async run<T>(page: Page, action: Parameters<typeof this.script>[0]): Promise<T> {
    const frame = await this.frameOf(page);
    return withTimeout(frame.evaluate(this.script(action)) as Promise<T>, EVALUATE_TIMEOUT_MS);
  }
}

const normalize = (text: string) => text.replace(/\s+/g, ' ').trim();
