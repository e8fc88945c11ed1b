/**
 * What audio transcription holds and what it dropped to keep its memory bounded (held-audio.ts),
 * on the process's registry: read when scraped, so nothing is counted on the audio's path.
 */
import client from 'prom-client';
import { HELD_QUEUES, heldAudio } from './held-audio.js';

export function heldAudioMetrics(registers: client.Registry[]): void {
  new client.Gauge({
    name: 'meeting_transcription_queue_bytes',
    help: "Bytes of audio transcription holds, by queue: waiting (finals' PCM waiting for an engine slot), sending (requests being sent or retried: PCM and WAV), held_back (auto: ended utterances kept in case captions missed them)",
    labelNames: ['queue'],
    registers,
    collect() {
      for (const queue of HELD_QUEUES) if (queue !== 'unemitted') this.set({ queue }, heldAudio.of(queue).bytes);
    },
  });
  new client.Gauge({
    name: 'meeting_transcription_queue_items',
    help: 'Items transcription holds, by queue: waiting, sending, held_back, and unemitted (finals not yet emitted, in the order their utterances ended)',
    labelNames: ['queue'],
    registers,
    collect() {
      for (const queue of HELD_QUEUES) this.set({ queue }, heldAudio.of(queue).items);
    },
  });
  // Counted as it happens (held-audio.ts), handed to prom-client as the increase since the last read.
  const handed = new Map<string, number>();
  new client.Counter({
    name: 'meeting_transcription_dropped_audio_seconds_total',
    help: 'Seconds of speech not sent to the speech engine to keep memory bounded (marked untranscribed, warning transcription_unavailable), by reason: meeting_queue_full (STT_MEETING_MAX_QUEUED_SECONDS), worker_queue_full (STT_MAX_QUEUED_SECONDS), backlog_full (finals not taken by the transcript)',
    labelNames: ['reason'],
    registers,
    collect() {
      for (const [reason, seconds] of heldAudio.drops()) {
        const increase = seconds - (handed.get(reason) ?? 0);
        if (increase > 0) this.inc({ reason }, increase);
        handed.set(reason, seconds);
      }
    },
  });
}
