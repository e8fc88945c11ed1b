/**
 * Who speaks, learned per meeting from what the tiles look like while the audio carries voice.
 *
 * The driver reports each tile's look at every reading (lookOf in page-scripts/dom-helpers.ts: a
 * token per element of the tile, its classes and drawn outline, border, shadow, opacity, icon
 * text, level; a token when it moves), never the platform's word for "speaking": builds draw that
 * their own way, and change it. Here a token is a speaking sign when it shows on some tile in many
 * of the readings taken while a track carries voice and hardly any taken while every track is
 * silent (voice from voice-activity.ts, through the
 * transcriber). An utterance's speaker is then the person whose tile shows a sign during it (the
 * overlap and onset scoring of SpeakerTimeline); before any sign is learned, or when none shows,
 * the person whose tile changed its look during it; UNKNOWN_SPEAKER only when no tile changed.
 *
 * The indicator shows late, more so on a loaded machine (indicator-lag.ts): every window here
 * (the readings counted as with voice or in silence, an utterance's lit tiles) is the voice's
 * own shifted by the meeting's lag, estimated from the readings and the speech as the meeting
 * goes (every LAG_EVERY_MS of audio, over the last LAG_WINDOW_MS) and 0 until there is enough of
 * both to tell.
 *
 * Meet hears each person on a track of their own, with no name on it: a track is mapped to the
 * person picked for it (or named by the captions), and the mapping settles a tie between two
 * people lit at once. It is kept across turns and replaced as soon as a clear pick says otherwise
 * (a track reused for someone else).
 */
import type { TileLook } from '../drivers/tile-readings.js';
import { estimateLag, LAG_MAX_MS, type TokenReading } from './indicator-lag.js';
import { SpeakerTimeline, UNKNOWN_SPEAKER } from './speaker-timeline.js';

export type { TileLook };

/** What the learner needs of an utterance (voice-activity.ts's Utterance): its speech, so far. */
export interface HeardSpeech {
  track: string;
  speechFromMs: number;
  speechToMs: number;
  ended: boolean;
}

/** Who is lit during an utterance is sampled at this step. */
const SAMPLE_MS = 100;
/** The indicators trail the voice a little, and the audio reaches the bot a little late. */
const LEAD_MS = 150;
const TRAIL_MS = 400;
/** A moment is silent only this far from any speech (its indicator may still be fading). */
const SILENT_GUARD_MS = 900;
/** Enough of both before a token's rates mean anything (in readings, 4 a second). */
const MIN_VOICED = 3;
const MIN_SILENT = 4;
/** A sign shows on some tile this often with voice, and at most this often in silence. */
const SIGN_VOICED_RATE = 0.4;
const SIGN_SILENT_RATE = 0.1;
/** Two people lit this close (scored in ms) are a tie for the track's mapping to settle. */
const TIE_MS = 400;
const KEEP_MS = 5 * 60_000;
/** The lag is estimated again after this much more audio, from the readings of this long before. */
const LAG_EVERY_MS = 1_000;
const LAG_WINDOW_MS = 30_000;

/** Before anything is learned, a tile's look at rest is the one it showed most in this long before the speech. */
const REST_MS = 60_000;

interface Snapshot extends TokenReading {
  /** Each tile's look, and the same as one string (to count looks by). */
  tiles: Array<{ key: string; name: string; look: Set<string>; sig: string }>;
}

export class SpeakerLearner {
  private readonly snapshots: Snapshot[] = [];
  private speech: HeardSpeech[] = [];
  /** The last reading, as reported: an unchanged one shares its tiles. */
  private lastReading = '';
  /** Audio heard up to here (the latest chunk's end): silence before it is known. */
  private heardUntil = 0;
  /** Readings counted up to here, and the counts: with voice, in silence, per token. */
  private countedUntil = 0;
  private voiced = 0;
  private silent = 0;
  private readonly voicedHits = new Map<string, number>();
  private readonly silentHits = new Map<string, number>();
  private readonly trackNames = new Map<string, string>();
  /** Every token seen, numbered (a reading's \`ids\`). */
  private readonly tokenIds = new Map<string, number>();
  /** How late the indicator shows against the voice (indicator-lag.ts), and the audio heard when it was last estimated. */
  private lagMs = 0;
  private lagEstimatedAt = -Infinity;

  /**
   * One reading of the tiles at `at` (the bot's own left out), every time the page is read: a
   * reading is what was seen then, and a page read seldom (a busy browser) must not have its last
   * look stand for the time between.
   */
  looks(tiles: TileLook[], at: number): void {
    const reading = JSON.stringify(tiles);
    const last = this.snapshots.at(-1);
    const same = last && reading === this.lastReading;
    this.lastReading = reading;
    if (same) this.snapshots.push({ at, tiles: last.tiles, ids: last.ids });
    else {
      const ids = new Set(tiles.flatMap((t) => t.look.map((token) => this.idOf(token))));
      const kept = tiles.map((t) => ({
        key: t.key,
        name: t.name,
        look: new Set(t.look),
        sig: [...t.look].sort().join('\n'),
      }));
      this.snapshots.push({ at, tiles: kept, ids: [...ids] });
    }
    while (this.snapshots.length > 1 && this.snapshots[1].at < at - KEEP_MS) this.snapshots.shift();
  }

  /** A track's audio arrived up to `endMs`. */
  audio(endMs: number): void {
    this.heardUntil = Math.max(this.heardUntil, endMs);
  }

  /** Speech began on a track; the object grows until it ends (its audio is not kept here: times only are read). */
  heard(speech: HeardSpeech): void {
    // Any ended one out of date goes, wherever it is: one never ended (a track gone silent mid-word) holds back nothing.
    const stale = (s: HeardSpeech) => s.ended && s.speechToMs < this.heardUntil - KEEP_MS;
    if (this.speech.some(stale)) this.speech = this.speech.filter((s) => !stale(s));
    this.speech.push(speech);
  }

  /** The captions said `name` spoke at `at`: the track carrying voice then is theirs. */
  captioned(name: string, at: number): void {
    const voiced = new Set(this.speech.filter((s) => covers(s, at, 0, 0)).map((s) => s.track));
    if (voiced.size === 1) this.trackNames.set([...voiced][0], name);
  }

  /** How late the meeting's indicator shows against the voice, as estimated so far (ms; 0 before it can be told). */
  get lag(): number {
    this.estimate();
    return this.lagMs;
  }

  /** The tokens learned so far to mean "this tile's person speaks". */
  signs(): Set<string> {
    this.estimate();
    this.count();
    const signs = new Set<string>();
    if (this.voiced < MIN_VOICED || this.silent < MIN_SILENT) return signs;
    for (const [token, hits] of this.voicedHits) {
      const inSilence = (this.silentHits.get(token) ?? 0) / this.silent;
      if (hits / this.voiced >= SIGN_VOICED_RATE && inSilence <= SIGN_SILENT_RATE) signs.add(token);
    }
    return signs;
  }

  /** The speaker of the speech on `track` from `fromMs` to `toMs`. */
  speakerOf(track: string, fromMs: number, toMs: number): string {
    const signs = this.signs();
    // Where the indicator shows for this speech: its times, as late as the meeting's indicator.
    [fromMs, toMs] = [fromMs + this.lagMs, toMs + this.lagMs];
    const from = fromMs - LEAD_MS;
    const to = toMs + TRAIL_MS;
    const lit = signs.size ? this.timeline(from, to, (look) => [...look].some((token) => signs.has(token))) : null;
    const changed = () => {
      const rest = this.restingLooks(from, to);
      return this.timeline(from, to, (look, key) => {
        const was = rest.get(key);
        return !was || !sameLook(was, look);
      });
    };
    const scores = ranked(lit?.scores(fromMs, toMs) ?? []);
    // Nothing learned: a change that comes only after short speech is still its (an indicator later than known).
    const picked = scores.length ? scores : ranked(changed().scores(fromMs, toMs + TRAIL_MS));
    if (!picked.length) return UNKNOWN_SPEAKER;
    // One mixed track (Teams, Zoom) names nobody: only a track of one's own (Meet) settles a tie.
    const mapped = new Set(this.speech.map((s) => s.track)).size > 1 ? this.trackNames.get(track) : undefined;
    const tied = picked.filter(([, score]) => score >= picked[0][1] - TIE_MS).map(([name]) => name);
    if (mapped && tied.includes(mapped)) return mapped;
    if (tied.length === 1) this.trackNames.set(track, picked[0][0]);
    return picked[0][0];
  }

  /**
   * Each tile's look at rest before `from`: the one it showed most in the REST_MS before, in the
   * readings with no voice if there are any (people are silent most of the time, and the last
   * speaker's indicator, still lit when the next one starts, is no look at rest); a tile not read
   * before, its first look until `to`.
   */
  private restingLooks(from: number, to: number): Map<string, Set<string>> {
    const quiet: LookCounts = new Map();
    const any: LookCounts = new Map();
    for (let i = this.snapshots.length - 1; i >= 0 && this.snapshots[i].at >= from - REST_MS; i--) {
      const snapshot = this.snapshots[i];
      if (snapshot.at >= from) continue;
      const voiced = this.speech.some((s) => covers(s, snapshot.at - this.lagMs, LEAD_MS, TRAIL_MS));
      for (const counts of voiced ? [any] : [quiet, any]) for (const tile of snapshot.tiles) tally(counts, tile);
    }
    const rest = new Map<string, Set<string>>();
    for (const counts of [quiet, any])
      for (const [key, looks] of counts) if (!rest.has(key)) rest.set(key, mostShown(looks));
    const first = this.at(from) ?? this.snapshots.find((s) => s.at <= to);
    for (const tile of first?.tiles ?? []) if (!rest.has(tile.key)) rest.set(tile.key, tile.look);
    return rest;
  }

  /** The snapshot in effect at `at`, if any (the last taken at or before it: they come in order). */
  private at(at: number): Snapshot | undefined {
    let [low, high] = [0, this.snapshots.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.snapshots[mid].at <= at) low = mid + 1;
      else high = mid;
    }
    return this.snapshots[low - 1];
  }

  /** Who is lit from `from` to `to`, sampled, by `lit(look, key)`; names of tiles that show one person twice, once. */
  private timeline(from: number, to: number, lit: (look: Set<string>, key: string) => boolean): SpeakerTimeline {
    const timeline = new SpeakerTimeline();
    for (let t = from; t <= to; t += SAMPLE_MS) {
      const names = new Set((this.at(t)?.tiles ?? []).filter((tile) => lit(tile.look, tile.key)).map((x) => x.name));
      timeline.speaking([...names], t);
    }
    timeline.speaking([], to);
    return timeline;
  }

  private idOf(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) this.tokenIds.set(token, (id = this.tokenIds.size));
    return id;
  }

  /**
   * The lag, estimated again once LAG_EVERY_MS more audio came, from the recent readings; kept
   * where nothing tells (indicator-lag.ts). A new lag counts the readings again under it.
   */
  private estimate(): void {
    if (this.heardUntil - this.lagEstimatedAt < LAG_EVERY_MS) return;
    this.lagEstimatedAt = this.heardUntil;
    const from = this.heardUntil - LAG_WINDOW_MS;
    const readings = this.snapshots.filter((s) => s.at >= from);
    // The speech those readings may be shifted onto.
    const speech = this.speech.filter((s) => s.speechToMs >= from - LAG_MAX_MS);
    const lag = estimateLag(readings, this.tokenIds.size, speech, this.heardUntil);
    if (lag === null || lag === this.lagMs) return;
    this.lagMs = lag;
    this.countedUntil = -Infinity;
    this.voiced = this.silent = 0;
    this.voicedHits.clear();
    this.silentHits.clear();
  }

  /** Counts the readings whose voice is settled (no speech can still start or end around them, the lag allowed for). */
  private count(): void {
    const until = this.heardUntil - SILENT_GUARD_MS + this.lagMs;
    for (const snapshot of this.snapshots) {
      const t = snapshot.at;
      if (t <= this.countedUntil) continue;
      if (t > until) break;
      this.countedUntil = t;
      const voiced = this.speech.some((s) => covers(s, t - this.lagMs, LEAD_MS, TRAIL_MS));
      const silent = !this.speech.some((s) => covers(s, t - this.lagMs, SILENT_GUARD_MS, SILENT_GUARD_MS));
      if (!voiced && !silent) continue;
      const tokens = new Set(snapshot.tiles.flatMap((tile) => [...tile.look]));
      const hits = voiced ? this.voicedHits : this.silentHits;
      if (voiced) this.voiced++;
      else this.silent++;
      for (const token of tokens) hits.set(token, (hits.get(token) ?? 0) + 1);
    }
  }
}

/** Whether `speech` was under way at `at`, give or take `before` and `after`. */
function covers(speech: HeardSpeech, at: number, before: number, after: number): boolean {
  return speech.speechFromMs - before <= at && at <= speech.speechToMs + after;
}

type LookCounts = Map<string, Map<string, { n: number; look: Set<string> }>>;

/** One more reading of `tile`'s look. */
function tally(counts: LookCounts, tile: Snapshot['tiles'][number]): void {
  const looks = counts.get(tile.key) ?? new Map<string, { n: number; look: Set<string> }>();
  counts.set(tile.key, looks);
  const seen = looks.get(tile.sig) ?? { n: 0, look: tile.look };
  seen.n++;
  looks.set(tile.sig, seen);
}

function mostShown(looks: Map<string, { n: number; look: Set<string> }>): Set<string> {
  return [...looks.values()].sort((a, b) => b.n - a.n)[0].look;
}

function sameLook(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const token of a) if (!b.has(token)) return false;
  return true;
}

/** Names by score, best first. */
function ranked(scores: Array<[string, number]>): Array<[string, number]> {
  return scores.sort((a, b) => b[1] - a[1]);
}
