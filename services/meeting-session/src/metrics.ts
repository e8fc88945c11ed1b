/** meeting-session's Prometheus metrics (on /metrics of the process that runs it). */
import client from 'prom-client';
import type { MeetingWarning, EventEnvelope } from '@notetaker/contracts';
import { FastHistogram } from './fast-histogram.js';
import type { CoachingMetrics } from './actor/coaching.js';
import { isBlindness } from './worker/caption-warnings.js';
import type { SpeechToText } from './transcription/audio-transcriber.js';
import { SpeechEngineError } from './transcription/speech-engine.js';
import { heldAudioMetrics } from './transcription/transcription-metrics.js';
import type { RecordingMetrics } from './recording/spools.js';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export interface MeetingGauges {
  activeMeetings(): number;
  /** Meetings whose bot cannot read captions now (worker/caption-warnings.ts). */
  captionWarnings(): Array<{ platform: string; warning: string; meetings: number }>;
  /** This process's worker's bot seats (zero for a registry alone). */
  seats(): { inUse: number; total: number };
  /** The worker's recording spool: bytes on disk, and meetings with audio storage has not taken yet. */
  recordingSpool(): { bytes: number; meetings: number };
}

export function createMeetingMetrics(registry: client.Registry, gauges: MeetingGauges) {
  const registers = [registry];
  // Counted per event in a plain object and handed to prom-client when it is read: its labelled
  // inc costs more than the rest of publishing an event.
  const publishedSinceRead: Record<string, number> = {};
  new client.Counter({
    name: 'meeting_events_published_total',
    help: 'Meeting events stored in the event log and published, by type',
    labelNames: ['type'],
    registers,
    collect() {
      for (const [type, count] of Object.entries(publishedSinceRead)) {
        if (count > 0) this.inc({ type }, count);
        publishedSinceRead[type] = 0;
      }
    },
  });
  const publishLatency = new FastHistogram({
    name: 'meeting_event_publish_seconds',
    help: 'From an event being emitted by its actor to its publication (stored first)',
    buckets: LATENCY_BUCKETS,
    registers,
  });
  new client.Gauge({
    name: 'meeting_actors_active',
    help: 'Meeting actors (bots) hosted by this worker',
    registers,
    collect() {
      this.set(gauges.activeMeetings());
    },
  });
  new client.Gauge({
    name: 'meeting_bot_seats_total',
    help: 'Bot seats of this worker (MAX_MEETINGS_PER_WORKER)',
    registers,
    collect() {
      this.set(gauges.seats().total);
    },
  });
  new client.Gauge({
    name: 'meeting_bot_seats_in_use',
    help: 'Bot seats taken: meetings whose browser is still open',
    registers,
    collect() {
      this.set(gauges.seats().inUse);
    },
  });
  const refused = new client.Counter({
    name: 'meeting_starts_refused_total',
    help: 'Starts answered 503 at_capacity because every bot seat of the instance was taken',
    registers,
  });
  new client.Gauge({
    name: 'meeting_captions_blind',
    help: 'Live meetings whose bot reads no captions now, by platform and warning (captions_unreadable: the platform changed its page)',
    labelNames: ['platform', 'warning'],
    registers,
    collect() {
      this.reset();
      for (const { platform, warning, meetings } of gauges.captionWarnings()) this.set({ platform, warning }, meetings);
    },
  });
  const blindEpisodes = new client.Counter({
    name: 'meeting_caption_blind_episodes_total',
    help: 'Times a live bot became unable to read captions, by platform and warning',
    labelNames: ['platform', 'warning'],
    registers,
  });
  const languageUnavailable = new client.Counter({
    name: 'meeting_caption_language_unavailable_total',
    help: 'Meetings whose bot could not select the caption language asked for (not offered, or its setting not found): captioned in the platform default',
    labelNames: ['platform'],
    registers,
  });
  const recordingUnavailable = new client.Counter({
    name: 'meeting_recording_unavailable_total',
    help: "Times recording storage stopped taking a meeting's audio (a full disk, an unreachable bucket, a hung store): the worker spooled it",
    labelNames: ['platform'],
    registers,
  });
  const captureDegraded = new client.Counter({
    name: 'meeting_recording_capture_degraded_total',
    help: "Times a recorded meeting's page captured too little of its audio (a renderer short of CPU) or none: silence in the file there",
    labelNames: ['platform'],
    registers,
  });
  const transcriptionTroubles = new client.Counter({
    name: 'meeting_transcription_troubles_total',
    help: 'Times audio transcription stopped working in a meeting: transcription_unavailable (the speech engine did not answer; the speech is marked untranscribed) or transcription_budget_exhausted',
    labelNames: ['platform', 'warning'],
    registers,
  });
  const joinScreenUnknown = new client.Counter({
    name: 'meeting_join_screen_unknown_total',
    help: 'Times a joining bot was stuck on a screen for a while (one it does not recognise, a platform change to read, or one it cannot get past; the bot kept trying), by platform',
    labelNames: ['platform'],
    registers,
  });
  return {
    recording: recordingMetrics(registers, gauges),
    coach: coachMetrics(registers),
    speech: speechMetrics(registers),
    onCaptionEpisode: (platform: string, warning: MeetingWarning) => {
      if (isBlindness(warning)) blindEpisodes.inc({ platform, warning });
      else if (warning === 'recording_unavailable') recordingUnavailable.inc({ platform });
      else if (warning === 'recording_capture_degraded') captureDegraded.inc({ platform });
      else if (warning.startsWith('transcription_')) transcriptionTroubles.inc({ platform, warning });
      else if (warning === 'join_screen_unknown') joinScreenUnknown.inc({ platform });
      else languageUnavailable.inc({ platform });
    },
    onRefusedForCapacity: () => refused.inc(),
    onPublished(event: EventEnvelope, emittedAt: number) {
      publishedSinceRead[event.type] = (publishedSinceRead[event.type] ?? 0) + 1;
      publishLatency.observe((performance.now() - emittedAt) / 1000);
    },
  };
}

/** The recording spool: what the worker holds for storage, what a full spool dropped, the appends tried again. */
function recordingMetrics(registers: client.Registry[], gauges: MeetingGauges): RecordingMetrics {
  new client.Gauge({
    name: 'meeting_recording_spool_bytes',
    help: "Bytes of recorded audio on the worker's disk (RECORDING_SPOOL_DIR) that storage has not acknowledged",
    registers,
    collect() {
      this.set(gauges.recordingSpool().bytes);
    },
  });
  new client.Gauge({
    name: 'meeting_recording_spool_meetings',
    help: 'Meetings whose recorded audio waits in the spool for storage (live, or ended and still being sent)',
    registers,
    collect() {
      this.set(gauges.recordingSpool().meetings);
    },
  });
  const dropped = new client.Counter({
    name: 'meeting_recording_spool_dropped_seconds_total',
    help: 'Seconds of meeting audio dropped because the spool was full (RECORDING_SPOOL_MAX_MB): spool_full gaps in the recordings',
    registers,
  });
  const retries = new client.Counter({
    name: 'meeting_recording_append_retries_total',
    help: 'Recording appends tried again (storage did not answer, or refused: full, unreachable)',
    registers,
  });
  return {
    appendRetry: () => retries.inc(),
    droppedForFullSpool: (seconds) => dropped.inc(seconds),
  };
}

/** Transcription from audio: where the words come from, how late, and what the engine is sent (what it bills). */
function speechMetrics(registers: client.Registry[]) {
  const switches = new client.Counter({
    name: 'meeting_transcription_source_changes_total',
    help: 'Meetings in transcription auto that switched source, by the source switched to (audio: captions could not be read)',
    labelNames: ['source'],
    registers,
  });
  const lag = new client.Histogram({
    name: 'meeting_transcription_lag_seconds',
    help: "From a word spoken to its first partial, or from an utterance's end to its final, the speech engine's own time left out",
    labelNames: ['kind'],
    buckets: [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10],
    registers,
  });
  heldAudioMetrics(registers);
  const requests = new client.Counter({
    name: 'meeting_transcription_requests_total',
    help: 'Requests sent to the speech engine, by priority (partial, final) and outcome (ok, busy, failed)',
    labelNames: ['priority', 'outcome'],
    registers,
  });
  const unknownSpeakers = new client.Counter({
    name: 'meeting_transcription_unknown_speaker_segments_total',
    help: 'Segments transcribed from audio said by "Unknown": no tile changed its look while they were said, by platform',
    labelNames: ['platform'],
    registers,
  });
  const audioSeconds = new client.Counter({
    name: 'meeting_transcription_audio_seconds_total',
    help: 'Seconds of audio sent to the speech engine (what a hosted engine bills), by priority',
    labelNames: ['priority'],
    registers,
  });
  const sent = (priority: string, outcome: string, seconds: number) => {
    requests.inc({ priority, outcome });
    if (seconds > 0) audioSeconds.inc({ priority }, seconds);
  };
  return {
    /** The engine, counting what it is sent: a partial refused for want of a slot was not sent. */
    metered: (engine: SpeechToText): SpeechToText => ({
      async transcribe(audio, options) {
        const seconds = audio.pcm.length / audio.sampleRate;
        try {
          const heard = await engine.transcribe(audio, options);
          sent(options.priority, 'ok', seconds);
          return heard;
        } catch (err) {
          const busy = err instanceof SpeechEngineError && err.kind === 'busy';
          sent(options.priority, busy ? 'busy' : 'failed', busy ? 0 : seconds);
          throw err;
        }
      },
    }),
    switched: (source: string) => switches.inc({ source }),
    unknownSpeaker: (platform: string) => unknownSpeakers.inc({ platform }),
    lag: (kind: 'partial' | 'final', seconds: number) => lag.observe({ kind }, Math.max(0, seconds)),
  };
}

/** The coaches: insights sent by category and source; the model coach's calls, their time and tokens. */
function coachMetrics(registers: client.Registry[]): CoachingMetrics {
  const insights = new client.Counter({
    name: 'meeting_coach_insights_total',
    help: 'coach_insight events raised, by category and source (rules, model)',
    labelNames: ['category', 'source'],
    registers,
  });
  const calls = new client.Counter({
    name: 'meeting_coach_model_calls_total',
    help: 'Model coach calls by outcome: ok, malformed (answer dropped), timeout, error (the endpoint failed or was unreachable)',
    labelNames: ['outcome'],
    registers,
  });
  const latency = new client.Histogram({
    name: 'meeting_coach_model_call_seconds',
    help: 'Model coach calls, from request to answer (or failure)',
    buckets: [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
    registers,
  });
  const tokens = new client.Counter({
    name: 'meeting_coach_model_tokens_total',
    help: 'Tokens the model coach spent, by kind (prompt, completion)',
    labelNames: ['kind'],
    registers,
  });
  const exhausted = new client.Counter({
    name: 'meeting_coach_model_budget_exhausted_total',
    help: 'Meetings whose model coach spent COACH_MAX_TOKENS_PER_MEETING (no more model calls for them)',
    registers,
  });
  return {
    onInsight: (category, source) => insights.inc({ category, source }),
    onCall(outcome, seconds, spent) {
      calls.inc({ outcome });
      latency.observe(seconds);
      if (spent.prompt > 0) tokens.inc({ kind: 'prompt' }, spent.prompt);
      if (spent.completion > 0) tokens.inc({ kind: 'completion' }, spent.completion);
    },
    onBudgetExhausted: () => exhausted.inc(),
  };
}
