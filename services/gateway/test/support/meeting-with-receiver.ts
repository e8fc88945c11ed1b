/**
 * The real stack with the scripted meeting platform (the only stand-in), two API tokens (the
 * owner's and another's) and a real local callback receiver that checks the owner's signatures.
 * `startMeeting` starts a meeting over REST with its callbacks sent to the receiver.
 */
import { startCallbackReceiver, type CallbackReceiver } from '../../../../test/support/callback-receiver.js';
import {
  scriptedDriverFactory,
  type ScriptedDriverFactory,
  type ScriptedMeeting,
} from '../../../../test/support/scripted-driver.js';
import { startTestStack, type TestStack } from '../../../../test/support/stack.js';

export interface StackWithReceiver {
  t: TestStack;
  driver: ScriptedDriverFactory;
  rx: CallbackReceiver;
  owner: { apiKey: string; signingSecret: string };
  other: { apiKey: string };
  /** Starts a meeting with the owner's key; throws with the answer unless it is 201. */
  startMeeting(): Promise<{ meetingId: string; meeting: ScriptedMeeting }>;
  stop(): Promise<void>;
}

/** A random link in Google Meet's form (abc-defg-hij). */
export function meetUrl(): string {
  const letters = (n: number) =>
    Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)]).join('');
  return `https://meet.google.com/${letters(3)}-${letters(4)}-${letters(3)}`;
}

export async function startStackWithReceiver(env: Record<string, string> = {}): Promise<StackWithReceiver> {
  const driver = scriptedDriverFactory();
  const t = await startTestStack(env, { driverFactory: driver });
  const owner = await t.createToken([]);
  const other = await t.createToken([]);
  const rx = await startCallbackReceiver({ secret: owner.signingSecret });
  return {
    t,
    driver,
    rx,
    owner,
    other,
    async startMeeting() {
      const res = await t.api('/meetings/start', {
        method: 'POST',
        apiKey: owner.apiKey,
        json: { url: meetUrl(), callbackUrl: `${rx.url}/hook`, saveTranscript: false },
      });
      if (res.status !== 201) throw new Error(`starting the meeting: ${res.status} ${await res.text()}`);
      const { meetingId } = (await res.json()) as { meetingId: string };
      return { meetingId, meeting: await driver.meeting(meetingId) };
    },
    async stop() {
      await t.stop();
      await rx.close();
    },
  };
}

/**
 * The stack with its receiver for one mocha suite: started by a before() hook registered here (so
 * it runs ahead of the suite's own), stopped by after(). The object returned is filled in once
 * that hook has run; read its fields inside hooks and tests.
 */
export function stackWithReceiverPerSuite(env: Record<string, string> = {}): StackWithReceiver {
  const stack = {} as StackWithReceiver;
  before(async () => {
    Object.assign(stack, await startStackWithReceiver(env));
  });
  after(() => stack.stop?.());
  return stack;
}
