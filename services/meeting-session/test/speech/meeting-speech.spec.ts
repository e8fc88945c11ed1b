/**
 * A meeting's speech queue against a real speech output engine (espeak-ng behind
 * /v1/audio/speech) and a stand-in for the call's side of the bot's voice (which plays each file
 * for as long as the test says): order, interrupt, and the failures a caller is told of.
 */
import { expect } from 'chai';
import { MeetingSpeech, type SpeechEvents } from '../../src/speech/meeting-speech.js';
import { TextToSpeech } from '../../src/speech/text-to-speech.js';
import type { BotVoice } from '../../src/speech/bot-voice.js';
import { speechOutputForSuite } from '../../../../test/support/speech-output/server.js';
import { eventually } from '../../../../test/support/wait.js';

/** A call that "plays" each file for `playMs`, cut short by interrupt(). */
function callVoice(playMs: number) {
  const played: number[] = [];
  let cut: (() => void) | null = null;
  const voice: BotVoice = {
    async say(audio, started) {
      played.push(audio.byteLength);
      started(playMs);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve('finished'), playMs);
        cut = () => {
          clearTimeout(timer);
          resolve('interrupted');
        };
      });
    },
    async interrupt() {
      cut?.();
    },
  };
  return { voice, played };
}

function recorder() {
  const log: string[] = [];
  const events: SpeechEvents = {
    started: ({ text }) => log.push(`started ${text}`),
    finished: ({ text, end }) => log.push(`${end} ${text}`),
    failed: ({ text, reason }) => log.push(`failed ${text}: ${reason}`),
    said: (text) => log.push(`said ${text}`),
  };
  return { log, events };
}

describe('meeting speech (a real speech output engine)', function () {
  this.timeout(20_000);
  const engine = speechOutputForSuite({ apiKey: 'sk-tts' });
  const tts = () =>
    new TextToSpeech({ baseUrl: engine().url, apiKey: 'sk-tts', model: 'm', voice: 'alloy', timeoutMs: 5000 });

  it('says the requests one after the other, in the order asked', async () => {
    const { voice, played } = callVoice(30);
    const { log, events } = recorder();
    const speech = new MeetingSpeech(tts(), () => voice, events);
    engine().delayMs = 60;
    speech.enqueue({ text: 'one' });
    speech.enqueue({ text: 'two' });
    speech.enqueue({ text: 'three', voice: 'nova' });
    await eventually(() => log.filter((l) => l.startsWith('finished')).length === 3, 'three said');
    expect(log).to.deep.equal([
      'started one',
      'said one',
      'finished one',
      'started two',
      'said two',
      'finished two',
      'started three',
      'said three',
      'finished three',
    ]);
    expect(played).to.have.length(3);
    expect(engine().requests.map((r) => [r.input, r.voice])).to.deep.equal([
      ['one', 'alloy'],
      ['two', 'alloy'],
      ['three', 'nova'],
    ]);
  });

  it('an interrupt cuts what is said, drops what waits, and says the new one', async () => {
    const { voice } = callVoice(2_000);
    const { log, events } = recorder();
    const speech = new MeetingSpeech(tts(), () => voice, events);
    speech.enqueue({ text: 'long' });
    speech.enqueue({ text: 'waiting' });
    await eventually(() => log.includes('started long'), 'the long one started');
    speech.enqueue({ text: 'now' }, true);
    await eventually(() => log.includes('interrupted long'), 'the long one cut');
    expect(log.slice(0, 4)).to.deep.equal(['started long', 'interrupted waiting', 'said long', 'interrupted long']);
    await eventually(() => log.includes('started now'), 'the new one started');
    speech.close();
  });

  it('tells why it could not speak: the engine refused, no engine, the bot not in the call', async () => {
    const { voice } = callVoice(10);
    const { log, events } = recorder();
    engine().failNext(1, 503);
    new MeetingSpeech(tts(), () => voice, events).enqueue({ text: 'refused' });
    new MeetingSpeech(null, () => voice, events).enqueue({ text: 'no engine' });
    new MeetingSpeech(tts(), () => null, events).enqueue({ audio: new Uint8Array([1, 2]) });
    await eventually(() => log.length === 3, 'three failures');
    expect(log).to.have.members([
      'failed refused: the speech engine answered 503: {"error":{"message":"failed on purpose","type":"invalid_request_error"}}',
      'failed no engine: no speech engine is configured (TTS_BASE_URL)',
      'failed null: the bot is not in the call',
    ]);
  });
});
