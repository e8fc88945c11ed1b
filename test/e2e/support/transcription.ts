/**
 * Transcription from audio in the whole-stack tests: a real speech engine (pocketsphinx behind
 * OpenAI's API, test/support/speech-engine) that knows the sentences below and nothing of when
 * or by whom they are said, and what to check of the segments it gives.
 */
import { expect } from 'chai';
import type { ReceivedCallback } from '../../support/callback-receiver.js';
import { speechEngineForSuite, type SpeechEngine } from '../../support/speech-engine/index.js';
import { payloadOf } from './world.js';

/** What the simulated people say in these tests: plain words, no commas (a pause would cut a sentence). */
export const SENTENCES = [
  'the budget review moves to thursday',
  'please send the slides before noon',
  'we should ship the release on friday',
  'i will update the release notes tomorrow',
  'the customer asked for a longer trial',
  'let us meet again next week',
  'my team can start the migration on monday',
  'the new office opens in april',
] as const;

/**
 * Starts the engine before the suite's world and puts its address in `env` (which useWorld reads
 * when its own before hook runs: register this first).
 */
export function useSpeechEngine(env: Record<string, string>): () => SpeechEngine {
  return speechEngineForSuite({ sentences: SENTENCES, apiKey: 'sk-test-speech' }, (engine) =>
    Object.assign(env, engine.env()),
  );
}

export interface HeardSegment {
  speaker: string;
  text: string;
  source: string;
  untranscribed?: { reason: string; until: string };
}

export const finals = (callbacks: ReceivedCallback[]): HeardSegment[] =>
  callbacks.filter((c) => c.eventType === 'segment_finalized').map((c) => payloadOf(c) as unknown as HeardSegment);

/** Words only: what a speech engine gives back is compared without case and punctuation. */
export const words = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z' ]+/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');

/** The segments' words and speakers are exactly `expected`, in order: nothing lost, nothing twice. */
export function expectHeard(
  segments: HeardSegment[],
  expected: Array<{ speaker: string; text: string; source?: string }>,
) {
  const got = segments.map((s) => ({ speaker: s.speaker, text: words(s.text), source: s.source }));
  const want = expected.map((e, i) => ({
    speaker: e.speaker,
    text: words(e.text),
    source: e.source ?? got[i]?.source,
  }));
  expect(got).to.deep.equal(want);
}
