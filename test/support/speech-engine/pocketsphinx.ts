/**
 * One decode by Debian's pocketsphinx (0.8+5prealpha: `pocketsphinx_continuous`, no newer
 * `pocketsphinx` command) with the US English acoustic model and a grammar. A process per
 * decode keeps concurrent requests apart; with a dictionary of the grammar's words only it starts
 * in a few milliseconds.
 *
 * The settings, each measured on 84 espeak-ng utterances (12 sentences, 7 voices):
 *  - `-remove_silence no` decodes the whole file as one utterance: with its voice-activity
 *    detection on, pocketsphinx splits at pauses and decodes each piece alone, so a pause inside a
 *    sentence would leave its second half matching nothing in the grammar;
 *  - wide beams (default 1e-48): the defaults pruned the right path of whole sentences (64 -> 72 of 84);
 *  - fillers are silence only (the model's noise dictionary also has +SPN+, a "some speech" model,
 *    that swallowed whole sentences), and silence is rare (`-silprob` 1e-10, default 0.005): with
 *    the default, the decoder ended sentences early and called the rest a pause (72 -> 78 of 84);
 *    1e-13 and below broke real pauses into invented words;
 *  - `-dither yes`: digital silence has no spectrum to normalize.
 */
import { execFile } from 'node:child_process';
import { writeFile, rm } from 'node:fs/promises';

export const ACOUSTIC_MODEL = '/usr/share/pocketsphinx/model/en-us/en-us';
export const SAMPLE_RATE = 16_000;

export interface TimedWord {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
}

/** Silence, breath and noise markers, and the grammar's empty transitions: not words. */
const NOT_A_WORD = /^(<s>|<\/s>|<sil>|\(NULL\)|\[NOISE\]|\[SPEECH\]|\+\+.*\+\+)$/;
/** `-time yes` prints one line per word: "word start end probability" ("friday(2)" for a variant). */
const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) \S+$/;

/** Where the grammar and its dictionary were written. */
export interface GrammarFiles {
  jsgfPath: string;
  dictionaryPath: string;
  /** FILLERS, written beside them. */
  fillersPath: string;
}

/** The filler dictionary: silence only. */
export const FILLERS = '<s> SIL\n</s> SIL\n<sil> SIL\n';

/** Decodes 16 kHz mono s16le PCM; `scratch` is a file path prefix of the caller's own. */
export async function decodeWithGrammar(pcm: Buffer, files: GrammarFiles, scratch: string): Promise<TimedWord[]> {
  const input = `${scratch}.raw`;
  await writeFile(input, pcm);
  try {
    const args = [
      ['-infile', input],
      ['-hmm', ACOUSTIC_MODEL],
      ['-dict', files.dictionaryPath],
      ['-jsgf', files.jsgfPath],
      ['-fdict', files.fillersPath],
      ['-samprate', String(SAMPLE_RATE)],
      ['-beam', '1e-80'],
      ['-pbeam', '1e-80'],
      ['-wbeam', '1e-60'],
      ['-silprob', '1e-10'],
      ['-dither', 'yes'],
      ['-remove_silence', 'no'],
      ['-time', 'yes'],
      ['-logfn', '/dev/null'],
    ].flat();
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile('pocketsphinx_continuous', args, { maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
        if (error) reject(new Error(`pocketsphinx_continuous failed: ${err || error.message}`));
        else resolve(out);
      });
    });
    return stdout
      .split('\n')
      .map((line) => WORD_LINE.exec(line.trim()))
      .filter((m): m is RegExpExecArray => m !== null && !NOT_A_WORD.test(m[1]))
      .map((m) => ({ word: m[1].replace(/\(\d+\)$/, ''), start: Number(m[2]), end: Number(m[3]) }));
  } finally {
    await rm(input, { force: true });
  }
}
