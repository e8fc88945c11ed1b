/**
 * The audio-transcription bench's figures from a phase (latencies with and without the engine's
 * time, cost, accuracy, what went wrong), and how they are printed.
 */
import type { TranscriptionRequestLog } from '../../support/speech-engine/index.js';
import { fmt, latencyRow, median, percentile, sorted } from '../stats.js';
import { metricSum, startsWithWords, wordEdits, wordsOf } from './audio-scoring.js';
import type { Heard, Phase, Said } from './audio-phase.js';

/** Speech, then at least this much silence, then speech again on one track: a silence inside speech. */
export const SILENCE_MS = 300;

export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
export const pct = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
export const inWindow = (p: Phase, at: number) => at >= p.windowFrom && at < p.windowTo;

/** Everything measured of an audio phase's words: latencies, engine time, cost, accuracy. */
export interface AudioFigures {
  finalMs: number[];
  finalMinusOwnMs: number[];
  finalMinusMedianMs: number[];
  /** End of sound -> the final's request at the engine; the engine's answer -> the final at the receiver. */
  finalSentMs: number[];
  finalAfterAnswerMs: number[];
  partialMs: number[];
  partialMinusOwnMs: number[];
  partialMinusMedianMs: number[];
  silencesInSpeech: number;
  firstShownMs: number[];
  wordsTotal: number;
  wordsInPartial: number;
  finalEngineMs: number[];
  partialEngineMs: number[];
  matchedRequests: number;
  ambiguous: number;
  offsetsMs: number[];
  /** Cost over the window. */
  requests: { all: number; final: number; partial: number; failed: number };
  audioS: { all: number; final: number; partial: number };
  spokenS: number;
  meetingMinutes: number;
  product: {
    partialOk: number;
    partialBusy: number;
    partialFailed: number;
    finalOk: number;
    finalFailed: number;
    partialS: number;
    finalS: number;
  };
  accuracy: {
    edits: number;
    refWords: number;
    exact: number;
    utterances: number;
    matched: number;
    speakerRight: number;
    unknown: number;
    untranscribed: number;
    finals: number;
  };
}

export function audioFigures(p: Phase): AudioFigures {
  const claimed = new Set<TranscriptionRequestLog>();
  const sameWords = (a: string, b: string) => wordsOf(a).join(' ') === wordsOf(b).join(' ');
  /** The latest unclaimed answered request with these words, sent from `from` on and answered by `by`. */
  const requestFor = (text: string, from: number, by: number, exact: boolean) =>
    p.requests
      .filter(
        (r) =>
          !claimed.has(r) &&
          r.status === 200 &&
          (exact ? r.text === text : sameWords(r.text ?? '', text)) &&
          r.at >= from - 50 &&
          r.at + (r.engineMs ?? Infinity) <= by + 5,
      )
      .sort((a, b) => b.at - a.at)[0];

  // Finals to their requests: the final's text as the engine gave it, sent after the sound ended,
  // answered before the final arrived; the latest such (the utterance's partials went before it).
  const finalRequest = new Map<Said, TranscriptionRequestLog>();
  let ambiguous = 0;
  const matched = p.utterances.filter((s) => s.final && !s.final.untranscribed);
  for (const s of [...matched].sort((a, b) => a.final!.at - b.final!.at)) {
    const request = requestFor(s.final!.text, s.soundEnd, s.final!.at, true);
    if (!request) continue;
    // Another meeting said the same sentence ending within 3 s: its final's request may have been taken for this one.
    const key = s.words.join(' ');
    if (
      p.utterances.some(
        (o) => o.meetingId !== s.meetingId && Math.abs(o.soundEnd - s.soundEnd) < 3_000 && o.words.join(' ') === key,
      )
    )
      ambiguous++;
    claimed.add(request);
    finalRequest.set(s, request);
  }
  // Finals no utterance accounts for (a sentence cut in two) had requests too.
  const finalRequests = new Set(finalRequest.values());
  const assigned = new Set(matched.map((s) => s.final));
  for (const f of [...p.finals.values()].flat()) {
    if (assigned.has(f) || f.untranscribed) continue;
    const request = requestFor(f.text, f.startedAt, f.at, true);
    if (request) {
      claimed.add(request);
      finalRequests.add(request);
    }
  }
  // Every other answered request was a partial (checked against the product's counters when printed).
  const partialEngineMs = p.requests.filter((r) => r.status === 200 && !claimed.has(r)).map((r) => r.engineMs!);
  // Partials to theirs: the same words (LocalAgreement shows the newest pass whole when it agrees
  // with what was committed), sent after the sound began, answered before the partial arrived. The
  // partial a final sends just before itself (it contradicted committed words) had the final's request.
  const partialRequest = new Map<Heard, TranscriptionRequestLog>();
  for (const s of p.utterances) {
    for (const h of s.partials ?? []) {
      const own = finalRequest.get(s);
      const request =
        own && s.final && h.text === s.final.text && s.final.at - h.at < 100
          ? own
          : requestFor(h.text, s.soundStart, h.at, false);
      if (!request) continue;
      if (request !== own) claimed.add(request);
      partialRequest.set(h, request);
    }
  }
  const finalEngineMs = [...finalRequest.values()].map((r) => r.engineMs!);
  const medianFinalEngine = median(finalEngineMs);
  const medianPartialEngine = median(partialEngineMs);

  const finalMs: number[] = [];
  const finalMinusOwnMs: number[] = [];
  const finalMinusMedianMs: number[] = [];
  const finalSentMs: number[] = [];
  const finalAfterAnswerMs: number[] = [];
  const partialMs: number[] = [];
  const partialMinusOwnMs: number[] = [];
  const firstShownMs: number[] = [];
  const offsetsMs: number[] = [];
  let wordsTotal = 0;
  let wordsInPartial = 0;
  // Latencies: utterances whose sound began in the window (their finals come after it, which is as it should be).
  for (const s of p.utterances.filter((u) => inWindow(p, u.soundStart))) {
    if (s.final) {
      offsetsMs.push(s.final.startedAt - s.soundStart);
      const late = s.final.at - s.soundEnd;
      finalMs.push(late);
      finalMinusMedianMs.push(late - medianFinalEngine);
      const own = finalRequest.get(s);
      if (own) {
        finalMinusOwnMs.push(late - own.engineMs!);
        finalSentMs.push(own.at - s.soundEnd);
        finalAfterAnswerMs.push(s.final.at - (own.at + own.engineMs!));
      }
    }
    const n = s.words.length;
    for (let i = 0; i < n; i++) {
      wordsTotal++;
      const spokenAt = s.soundStart + ((s.soundEnd - s.soundStart) * (i + 1)) / n;
      const prefix = s.words.slice(0, i + 1);
      const partial = (s.partials ?? []).find((h) => startsWithWords(wordsOf(h.text), prefix));
      const final = s.final && startsWithWords(wordsOf(s.final.text), prefix) ? s.final : undefined;
      if (partial && (!s.final || partial.at <= s.final.at)) {
        wordsInPartial++;
        partialMs.push(partial.at - spokenAt);
        const own = partialRequest.get(partial);
        if (own) partialMinusOwnMs.push(partial.at - spokenAt - own.engineMs!);
      }
      const first = Math.min(partial?.at ?? Infinity, final?.at ?? Infinity);
      if (Number.isFinite(first)) firstShownMs.push(first - spokenAt);
    }
  }

  // Silences inside a sentence's sound: audio lost on its way into the bot's page (the script has none there).
  let silencesInSpeech = 0;
  for (const [meetingId, runs] of p.silences) {
    for (const run of runs) {
      if (p.utterances.some((s) => s.meetingId === meetingId && run.from > s.soundStart && run.to < s.soundEnd + 200))
        silencesInSpeech++;
    }
  }

  // Cost over the window.
  const windowed = p.requests.filter((r) => inWindow(p, r.at));
  const audioOf = (rs: TranscriptionRequestLog[]) => sum(rs.map((r) => r.audioSeconds ?? 0));
  const finalsIn = windowed.filter((r) => finalRequests.has(r));
  const partialsIn = windowed.filter((r) => !finalRequests.has(r));
  const spokenS = sum(
    p.utterances.map(
      (s) => Math.max(0, Math.min(s.soundEnd, p.windowTo) - Math.max(s.soundStart, p.windowFrom)) / 1000,
    ),
  );
  const delta = (name: string, labels: Record<string, string>) =>
    metricSum(p.metrics[1], name, labels) - metricSum(p.metrics[0], name, labels);
  const req = 'meeting_transcription_requests_total';
  const sec = 'meeting_transcription_audio_seconds_total';

  // Accuracy over every utterance of the phase: per meeting, the finals' words in order against the script's.
  let edits = 0;
  let refWords = 0;
  for (const m of p.meetings) {
    const reference = p.utterances.filter((s) => s.meetingId === m.meetingId).flatMap((s) => s.words);
    const hypothesis = (p.finals.get(m.meetingId) ?? [])
      .filter((f) => !f.untranscribed)
      .flatMap((f) => wordsOf(f.text));
    edits += wordEdits(reference, hypothesis);
    refWords += reference.length;
  }
  const withFinal = p.utterances.filter((s) => s.final);
  const allFinals = [...p.finals.values()].flat();
  return {
    finalMs,
    finalMinusOwnMs,
    finalMinusMedianMs,
    finalSentMs,
    finalAfterAnswerMs,
    partialMs,
    partialMinusOwnMs,
    partialMinusMedianMs: partialMs.map((ms) => ms - medianPartialEngine),
    silencesInSpeech,
    firstShownMs,
    wordsTotal,
    wordsInPartial,
    finalEngineMs,
    partialEngineMs,
    matchedRequests: finalRequest.size,
    ambiguous,
    offsetsMs,
    requests: {
      all: windowed.length,
      final: finalsIn.length,
      partial: partialsIn.filter((r) => r.status === 200).length,
      failed: windowed.filter((r) => r.status !== 200).length,
    },
    audioS: { all: audioOf(windowed), final: audioOf(finalsIn), partial: audioOf(partialsIn) },
    spokenS,
    meetingMinutes: (p.meetings.length * (p.windowTo - p.windowFrom)) / 60_000,
    product: {
      partialOk: delta(req, { priority: 'partial', outcome: 'ok' }),
      partialBusy: delta(req, { priority: 'partial', outcome: 'busy' }),
      partialFailed: delta(req, { priority: 'partial', outcome: 'failed' }),
      finalOk: delta(req, { priority: 'final', outcome: 'ok' }),
      finalFailed: delta(req, { priority: 'final', outcome: 'failed' }),
      partialS: delta(sec, { priority: 'partial' }),
      finalS: delta(sec, { priority: 'final' }),
    },
    accuracy: {
      edits,
      refWords,
      exact: withFinal.filter((s) => wordsOf(s.final!.text).join(' ') === s.words.join(' ')).length,
      utterances: p.utterances.length,
      matched: withFinal.length,
      speakerRight: withFinal.filter((s) => s.final!.speaker === s.speaker).length,
      unknown: withFinal.filter((s) => s.final!.speaker === 'Unknown').length,
      untranscribed: allFinals.filter((f) => f.untranscribed).length,
      finals: allFinals.length,
    },
  };
}

/**
 * What went wrong, by platform, with a few examples: utterances not heard exactly or given to the
 * wrong speaker, and finals that no utterance accounts for (a sentence cut in two, say).
 */
export function printProblems(p: Phase): void {
  const labels = { google_meet: 'Meet', teams: 'Teams', zoom: 'Zoom' } as const;
  const platformOf = new Map(p.meetings.map((m) => [m.meetingId, labels[m.platform]]));
  const examples: string[] = [];
  const quote = (h: Heard) => `"${h.text}" (${h.speaker})`;
  for (const label of Object.values(labels)) {
    const us = p.utterances.filter((s) => platformOf.get(s.meetingId) === label);
    if (us.length === 0) continue;
    const misheard = us.filter((s) => !s.final || wordsOf(s.final.text).join(' ') !== s.words.join(' '));
    const wrong = us.filter((s) => s.final && s.final.speaker !== s.speaker);
    const used = new Set(us.map((s) => s.final));
    const extra = p.meetings
      .filter((m) => platformOf.get(m.meetingId) === label)
      .flatMap((m) => (p.finals.get(m.meetingId) ?? []).filter((f) => !used.has(f)).map((f) => ({ m, f })));
    // A final that begins just after a silence inside speech on a track: that cut the sentence there.
    const near = (f: Heard, at: number) => f.startedAt - at > -250 && f.startedAt - at < 750;
    const afterSilence = extra.filter(({ m, f }) =>
      (p.silences.get(m.meetingId) ?? []).some((run) => near(f, run.to)),
    ).length;
    console.log(
      `   ${label}: ${us.length} utterances, ${misheard.length} not heard exactly, ${wrong.length} given to the wrong speaker, ` +
        `${extra.length} finals no utterance accounts for (${afterSilence} of them within 0.75 s after a silence inside speech)`,
    );
    // How late the worker placed the utterances (its start as heard - the sound's start), named right and wrong.
    const lateness = (ss: Said[]) => fmt(median(ss.map((x) => x.final!.startedAt - x.soundStart)), 0, 0);
    const right = us.filter((x) => x.final && x.final.speaker === x.speaker);
    if (wrong.length)
      console.log(
        `      heard start - sound start p50: ${lateness(right)} ms for those named right, ${lateness(wrong)} ms for those named wrong`,
      );
    for (const s of misheard.slice(0, 3))
      examples.push(`${label}: ${s.speaker} said "${s.words.join(' ')}" -> ${s.final ? quote(s.final) : 'no final'}`);
    for (const s of wrong.filter((w) => !misheard.includes(w)).slice(0, 2))
      examples.push(`${label}: ${s.speaker} said "${s.words.join(' ')}" -> ${quote(s.final!)}`);
    for (const { m, f } of extra.slice(0, 3)) {
      const before = p.utterances
        .filter((s) => s.meetingId === m.meetingId && s.soundStart <= f.startedAt)
        .sort((a, b) => b.soundStart - a.soundStart)[0];
      const where = before
        ? `heard from ${((f.startedAt - before.soundStart) / 1000).toFixed(2)} s into "${before.words.join(' ')}" (${((before.soundEnd - before.soundStart) / 1000).toFixed(2)} s long, by ${before.speaker})`
        : 'heard before any utterance';
      examples.push(`${label}: extra final ${quote(f)} ${where}`);
    }
  }
  for (const e of examples) console.log(`      ${e}`);
}

export function printAudio(f: AudioFigures, indent = '   '): void {
  const line = (text: string) => console.log(`${indent}${text}`);
  const a = f.accuracy;
  line(
    `utterances heard ${a.utterances}, finals ${a.finals} (${a.untranscribed} untranscribed), matched to an utterance ${a.matched}; ` +
      `heard start - sound start p50 ${fmt(median(f.offsetsMs), 0, 4)} ms`,
  );
  line(latencyRow('final: end of sound -> segment_finalized', f.finalMs));
  line(
    latencyRow(
      `  minus its own request's engineMs (${f.matchedRequests} matched, ${f.ambiguous} ambiguous)`,
      f.finalMinusOwnMs,
    ),
  );
  line(
    latencyRow(`  minus the median final engineMs (${fmt(median(f.finalEngineMs), 0, 0)} ms)`, f.finalMinusMedianMs),
  );
  line(latencyRow(`  of which end of sound -> its request at the engine`, f.finalSentMs));
  line(latencyRow(`  and the engine's answer -> segment_finalized`, f.finalAfterAnswerMs));
  line(
    latencyRow(`partial: word spoken -> first caption_partial holding it`, f.partialMs) +
      `; ${pct(f.wordsInPartial, f.wordsTotal)} of ${f.wordsTotal} words shown by a partial before the final`,
  );
  line(latencyRow(`  minus its own request's engineMs`, f.partialMinusOwnMs));
  line(
    latencyRow(
      `  minus the median partial engineMs (${fmt(median(f.partialEngineMs), 0, 0)} ms)`,
      f.partialMinusMedianMs,
    ),
  );
  line(latencyRow('word spoken -> first shown, partial or final', f.firstShownMs));
  const engineRow = (label: string, ms: number[]) =>
    `${label} engineMs p50 ${fmt(percentile(sorted(ms), 50), 0, 0)} p99 ${fmt(percentile(sorted(ms), 99), 0, 0)} (${ms.length})`;
  line(`engine: ${engineRow('finals', f.finalEngineMs)}, ${engineRow('partials', f.partialEngineMs)}`);
  const per = (n: number) => fmt(n / f.meetingMinutes, 1, 0);
  line(
    `cost per meeting-minute (engine log, window): ${per(f.requests.all)} requests (finals ${per(f.requests.final)}, partials ${per(f.requests.partial)}, ` +
      `not 200 ${per(f.requests.failed)}), ${per(f.audioS.all)} audio s (finals ${per(f.audioS.final)}, partials ${per(f.audioS.partial)}); ` +
      `audio sent / spoken ${fmt(f.audioS.all / f.spokenS, 2, 0)} (${f.spokenS.toFixed(0)} s spoken)`,
  );
  const q = f.product;
  line(
    `   the product's counters over the window, per meeting-minute: partial ok ${per(q.partialOk)} busy (dropped) ${per(q.partialBusy)} failed ${per(q.partialFailed)}, ` +
      `final ok ${per(q.finalOk)} failed ${per(q.finalFailed)}; audio s partial ${per(q.partialS)} final ${per(q.finalS)}`,
  );
  line(
    `silences of >= ${SILENCE_MS} ms between speech on a track inside a sentence's sound (sound lost before the tap): ${f.silencesInSpeech}`,
  );
  line(
    `word accuracy 1 - WER ${pct(a.refWords - a.edits, a.refWords)} (${a.edits} edits in ${a.refWords} words), ` +
      `utterances heard exactly ${a.exact}/${a.utterances}, speaker named right ${a.speakerRight}/${a.matched} (Unknown ${a.unknown})`,
  );
}

export function mergeAudio(fs: AudioFigures[]): AudioFigures {
  const cat = (pick: (f: AudioFigures) => number[]) => fs.flatMap(pick);
  const add = <T extends Record<string, number>>(pick: (f: AudioFigures) => T): T => {
    const out = { ...pick(fs[0]) } as Record<string, number>;
    for (const f of fs.slice(1)) for (const [k, v] of Object.entries(pick(f))) out[k] += v;
    return out as T;
  };
  return {
    finalMs: cat((f) => f.finalMs),
    finalMinusOwnMs: cat((f) => f.finalMinusOwnMs),
    finalMinusMedianMs: cat((f) => f.finalMinusMedianMs),
    finalSentMs: cat((f) => f.finalSentMs),
    finalAfterAnswerMs: cat((f) => f.finalAfterAnswerMs),
    partialMs: cat((f) => f.partialMs),
    partialMinusOwnMs: cat((f) => f.partialMinusOwnMs),
    partialMinusMedianMs: cat((f) => f.partialMinusMedianMs),
    silencesInSpeech: sum(fs.map((f) => f.silencesInSpeech)),
    firstShownMs: cat((f) => f.firstShownMs),
    wordsTotal: sum(fs.map((f) => f.wordsTotal)),
    wordsInPartial: sum(fs.map((f) => f.wordsInPartial)),
    finalEngineMs: cat((f) => f.finalEngineMs),
    partialEngineMs: cat((f) => f.partialEngineMs),
    matchedRequests: sum(fs.map((f) => f.matchedRequests)),
    ambiguous: sum(fs.map((f) => f.ambiguous)),
    offsetsMs: cat((f) => f.offsetsMs),
    requests: add((f) => f.requests),
    audioS: add((f) => f.audioS),
    spokenS: sum(fs.map((f) => f.spokenS)),
    meetingMinutes: sum(fs.map((f) => f.meetingMinutes)),
    product: add((f) => f.product),
    accuracy: add((f) => f.accuracy),
  };
}
