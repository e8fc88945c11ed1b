/**
 * How late a meeting's speaking indicator shows, against the voice on its tracks: the page draws
 * it a moment after the sound (the platform's server tells the clients who speaks; a busy page
 * paints late), the bot reads the page every few hundred ms, and a loaded machine hands a
 * reading over well after it was taken, while the tracks' audio carries its own clock. Under load
 * the lit look spills past the voice it belongs to by most of a second: read against the voice's
 * own times, it looks like a look shown in silence (no sign is learned) and it lights the next
 * speaker's first words.
 *
 * The lag is the shift of the voice's times that makes some look token agree best with it: for
 * each candidate shift (LAG_MIN_MS to LAG_MAX_MS) the readings fall in two, those taken while the
 * shifted voice is on and the others, and a token's agreement is the share of the first that
 * show it less the share of the others that do (1: it shows exactly while there is voice). The
 * best token's agreement is the candidate's score; the lag is the middle of the candidates
 * scoring about as well as the best (readings come a few hundred ms apart, and an indicator that
 * stays lit a moment after the voice agrees as well over a range), once that score says a token
 * follows the voice at all and the range is narrow enough to mean one lag. An indicator that is
 * not late at all comes out a little after 0 (the middle of its own trail). Negative shifts are
 * candidates too: a page that plays its audio late lights the indicator before the sound.
 */

/** The shifts looked at (ms): the indicator at most a second early, two seconds late. */
export const LAG_MIN_MS = -1_000;
export const LAG_MAX_MS = 2_000;
const LAG_STEP_MS = 100;
/** Readings of each kind a candidate needs before its score means anything (some 4 s of each at 4 readings a second). */
const MIN_VOICED = 24;
const MIN_SILENT = 24;
/** The best token agrees with the voice at least this well, or the lag found is no lag at all. */
const MIN_AGREEMENT = 0.5;
/** Candidates this close to the best score are as good as it... */
const TIE = 0.03;
/** ...and a range of them wider than this says the readings cannot tell the lag yet. */
const MAX_RANGE_MS = 700;

/** A reading of the tiles: when, and the tokens any tile showed (numbered, each once). */
export interface TokenReading {
  at: number;
  ids: readonly number[];
}

export interface SpeechSpan {
  speechFromMs: number;
  speechToMs: number;
}

/**
 * The lag (ms) that best lines the readings up with the speech, or null when no shift makes any
 * token follow the voice (too little heard yet, or no tile ever changed). `heardUntil`: audio is
 * known up to here, so a reading is judged only where its shifted moment is.
 */
export function estimateLag(
  readings: readonly TokenReading[],
  tokenCount: number,
  speech: readonly SpeechSpan[],
  heardUntil: number,
): number | null {
  const scored: Array<[lag: number, score: number]> = [];
  const voicedHits = new Int32Array(tokenCount);
  const silentHits = new Int32Array(tokenCount);
  for (let lag = LAG_MIN_MS; lag <= LAG_MAX_MS; lag += LAG_STEP_MS) {
    voicedHits.fill(0);
    silentHits.fill(0);
    let voiced = 0;
    let silent = 0;
    for (const reading of readings) {
      const t = reading.at - lag;
      if (t > heardUntil) continue;
      const on = speech.some((s) => s.speechFromMs <= t && t <= s.speechToMs);
      const hits = on ? voicedHits : silentHits;
      if (on) voiced++;
      else silent++;
      for (const id of reading.ids) hits[id]++;
    }
    if (voiced < MIN_VOICED || silent < MIN_SILENT) continue;
    let best = -1;
    for (let id = 0; id < tokenCount; id++) best = Math.max(best, voicedHits[id] / voiced - silentHits[id] / silent);
    scored.push([lag, best]);
  }
  const top = Math.max(...scored.map(([, score]) => score));
  if (!(top >= MIN_AGREEMENT)) return null;
  const range = scored.filter(([, score]) => score >= top - TIE).map(([lag]) => lag);
  if (range.at(-1)! - range[0] > MAX_RANGE_MS) return null;
  return range[Math.floor(range.length / 2)];
}
