/**
 * The page driver's voice (speech/bot-voice.ts): the bot's own microphone (speech/page-microphone.ts,
 * installed before the platform's scripts) and the platform's microphone button
 * (page-scripts/microphone-toggle.ts), turned on for a speech and off after, so that the bot is
 * muted whenever it does not speak, as a polite participant is.
 */
import type { Frame, Page } from 'puppeteer-core';
import type { BotVoice, SpeechEnd } from '../speech/bot-voice.js';
import { ENDED_EXPRESSION, MICROPHONE_SCRIPT, playExpression, STOP_EXPRESSION } from '../speech/page-microphone.js';
import { microphoneScript, type MicrophoneReading, type MicrophoneWordings } from './page-scripts/microphone-toggle.js';
import { revealControls } from './pointer.js';

/** How long the button may take to show the state asked for. */
const TOGGLE_WAIT_MS = 5_000;
const TOGGLE_POLL_MS = 100;

export class PageVoice implements BotVoice {
  constructor(
    private readonly page: () => Page | null,
    private readonly clientFrame: (page: Page) => Promise<Frame>,
    private readonly wordings: MicrophoneWordings,
  ) {}

  /** Before the page opens anything: the microphone of our own in every frame's new document. */
  static async install(page: Page): Promise<void> {
    await page.evaluateOnNewDocument(MICROPHONE_SCRIPT);
  }

  async say(audio: Uint8Array, started: (durationMs: number) => void): Promise<SpeechEnd> {
    const frame = await this.frame();
    await this.setMicrophone(frame, true);
    try {
      const { durationMs } = (await frame.evaluate(playExpression(Buffer.from(audio).toString('base64')))) as {
        durationMs: number;
      };
      started(durationMs);
      return (await frame.evaluate(ENDED_EXPRESSION)) as SpeechEnd;
    } finally {
      await this.setMicrophone(frame, false).catch(() => {});
    }
  }

  async interrupt(): Promise<void> {
    const frame = await this.frame().catch(() => null);
    await frame?.evaluate(STOP_EXPRESSION).catch(() => {});
  }

  private async frame(): Promise<Frame> {
    const page = this.page();
    if (!page) throw new Error('the bot is not in the call');
    return this.clientFrame(page);
  }

  /** Clicks the platform's microphone button until it shows `on`; throws when it cannot. */
  private async setMicrophone(frame: Frame, on: boolean): Promise<void> {
    const until = Date.now() + TOGGLE_WAIT_MS;
    let clickedAt = 0;
    for (;;) {
      // A click at most every second: the button may take a moment to change its name.
      const want = Date.now() - clickedAt >= 1_000 ? on : null;
      const reading = (await frame.evaluate(microphoneScript(this.wordings, want))) as MicrophoneReading;
      if (reading.state === (on ? 'on' : 'off')) return;
      if (reading.clicked) clickedAt = Date.now();
      if (reading.state === 'none') {
        // Hidden toolbars show again when the pointer moves.
        const page = this.page();
        if (page) await revealControls(page).catch(() => {});
      }
      if (Date.now() >= until) {
        throw new Error(
          reading.state === 'none'
            ? 'no microphone button was found in the call'
            : `the microphone did not turn ${on ? 'on' : 'off'} in ${TOGGLE_WAIT_MS / 1000} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, TOGGLE_POLL_MS));
    }
  }
}
