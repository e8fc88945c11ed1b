/** A speech engine for one suite: started before its tests, reset (log emptied) after each, closed after them. */
import { startSpeechEngine, type SpeechEngine, type SpeechEngineOptions } from './server.js';

/** Call inside `describe`; `started` runs once the engine answers (e.g. to put its address in a stack's env). */
export function speechEngineForSuite(
  options: SpeechEngineOptions,
  started?: (engine: SpeechEngine) => void,
): () => SpeechEngine {
  let engine: SpeechEngine | undefined;
  before(async () => {
    engine = await startSpeechEngine(options);
    started?.(engine);
  });
  afterEach(() => {
    engine?.reset();
    if (engine) engine.requests.length = 0;
  });
  after(async () => {
    await engine?.close();
  });
  return () => engine!;
}
