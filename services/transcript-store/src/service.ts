/**
 * The transcript-store service: segments in its own store, markdown documents under CONTENT_ROOT,
 * and search over saved transcripts. Served on `svc.transcripts.*` in the `q.transcripts` queue
 * group; every instance also follows `broadcast.transcripts.saved` to keep its search index whole when
 * another instance wrote a document, and serves its own `instance.transcripts.<id>.recording-*`
 * subjects for the recordings it writes (recordings/forwarding.ts).
 */
import crypto from 'node:crypto';
import { broadcasts, queueGroup, routes } from '@notetaker/contracts';
import { parseEnv } from '@notetaker/config';
import type { RunningService, ServiceContext, ServiceDefinition } from '@notetaker/service-runtime';
import { announce, answer, listen, type Subscription } from '@notetaker/bus';
import { z } from 'zod';
import { Documents } from './documents.js';
import { Indexer } from './indexer.js';
import { Segments } from './segments.js';
import { ChatMessages } from './chat.js';
import { RecordingLibrary } from './recordings/library.js';
import { recordingStorageFromEnv } from './recordings/index.js';
import type { ChainLimits } from './recordings/chains.js';
import { RecordingRoutes } from './recordings/forwarding.js';
import { RecordingSweep, type SweepOptions } from './recordings/sweep.js';
import type { WriterLeaseOptions } from './recordings/writers.js';
import { createRecordingMetrics } from './metrics.js';

/** transcript-store's own variables (the shared ones are in @notetaker/config). */
export const transcriptStoreEnv = z.object({
  TRANSCRIPT_FSYNC: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true'),
});

export interface RunningTranscriptStore extends RunningService {
  /** Segments in the search index (for tests and benchmarks). */
  indexedSegments(): number;
  /** Resolves once the search index rebuilt at start is whole. */
  indexReady(): Promise<void>;
  /** This instance's id: the holder named on the recordings it writes, and its own subjects' token. */
  replicaId: string;
}

/** How the recordings' replicas share the work; the defaults are production's (tests shorten them). */
export interface TranscriptStoreOptions {
  recordings?: {
    writerLease?: WriterLeaseOptions;
    chains?: ChainLimits;
    sweep?: SweepOptions;
    forwardTimeoutMs?: number;
  };
}

export function transcriptStoreService(
  options: TranscriptStoreOptions = {},
): ServiceDefinition<RunningTranscriptStore> {
  return {
    name: 'transcript-store',
    async start(ctx: ServiceContext): Promise<RunningTranscriptStore> {
      const env = parseEnv(transcriptStoreEnv, ctx.config.env);
      const origin = crypto.randomUUID();
      const segments = new Segments(ctx.store);
      const chat = new ChatMessages(ctx.store);
      const storage = recordingStorageFromEnv({
        env: ctx.config.env,
        dataDir: ctx.config.dataDir,
        fsync: env.TRANSCRIPT_FSYNC,
        logger: ctx.logger,
      });
      const tuning = options.recordings ?? {};
      // Read when /metrics is scraped, by then both exist.
      const metrics = createRecordingMetrics(ctx.metrics, {
        load: () => ({ chain: recordings.chains.load(), forward: recordingRoutes.forwards.load() }),
        leases: () => recordings.writers.count(),
      });
      const recordings = new RecordingLibrary(ctx.store, storage, ctx.logger, {
        replicaId: origin,
        writerLease: tuning.writerLease,
        chains: tuning.chains,
        onBusy: metrics.onBusy('chain'),
      });
      const recordingRoutes = new RecordingRoutes({
        bus: ctx.bus,
        library: recordings,
        logger: ctx.logger,
        forwardTimeoutMs: tuning.forwardTimeoutMs,
        chains: tuning.chains,
        onBusy: metrics.onBusy('forward'),
        onForwarded: metrics.onForwarded,
      });
      const sweep = new RecordingSweep(recordings, ctx.logger, tuning.sweep, metrics.onSwept);
      const documents = new Documents(ctx.store, segments, ctx.config.contentRoot, {
        fsync: env.TRANSCRIPT_FSYNC,
        chat,
        recordingOf: (meetingId) => recordings.get(meetingId),
      });
      await segments.init();
      await chat.init();
      await documents.init();
      await recordings.init();
      sweep.start();
      const indexer = new Indexer(documents, segments, ctx.logger, chat);
      ctx.logger.info(
        { storage: storage.description, replica: origin },
        'recordings are kept in ' + storage.description,
      );

      const queue = { queue: queueGroup('transcripts') };
      const { transcripts } = routes;
      const subs: Subscription[] = [
        // Follow other instances' flushes before reading the store, so none falls between the two.
        listen(ctx.bus, broadcasts.transcriptSaved, async (notice) => {
          if (notice.origin !== origin) await indexer.follow(notice.meetingId, notice.lastIndex);
        }),
      ];
      const rebuilt = indexer.rebuildUntilDone();

      subs.push(
        answer(ctx.bus, transcripts.open, async (req) => ({ documentPath: await documents.open(req) }), queue),
        answer(
          ctx.bus,
          transcripts.append,
          async (req) => ({ stored: await segments.append(req.meetingId, req.index, req.segment) }),
          queue,
        ),
        answer(
          ctx.bus,
          transcripts.flush,
          async (req) => {
            const flushed = await documents.flush(req);
            if (!flushed) return null;
            if (flushed.fresh.segments.length > 0 || (flushed.fresh.chat?.length ?? 0) > 0) {
              // Searchable before the flush is answered: "the index follows every flush".
              await indexer.add(flushed.fresh);
              announce(ctx.bus, broadcasts.transcriptSaved, {
                meetingId: flushed.fresh.meta.meetingId,
                lastIndex: flushed.fresh.meta.lastIndex,
                origin,
              });
            }
            return flushed.result;
          },
          queue,
        ),
        answer(ctx.bus, transcripts.segments, (req) => segments.page(req.meetingId, req.fromIndex), queue),
        answer(
          ctx.bus,
          transcripts.chatAppend,
          async (req) => ({ stored: await chat.append(req.meetingId, req.index, req.message) }),
          queue,
        ),
        answer(ctx.bus, transcripts.chat, async (req) => ({ messages: await chat.list(req.meetingId) }), queue),
        answer(ctx.bus, transcripts.document, (req) => documents.read(req.meetingId, req.offset, req.version), queue),
        answer(
          ctx.bus,
          transcripts.search,
          (req) => ({ results: indexer.search(req.q, { project: req.project, limit: req.limit }) }),
          queue,
        ),
      );

      recordingRoutes.serve();

      return {
        indexedSegments: () => indexer.index.size,
        indexReady: () => rebuilt,
        replicaId: origin,
        async stop() {
          indexer.stop();
          await Promise.all([...subs.map((s) => s.unsubscribe()), recordingRoutes.close(), sweep.close()]);
          await segments.flush();
          await rebuilt;
          // Its leases let go once its requests are answered: another replica writes those recordings at once.
          await recordings.close();
          await storage.close();
        },
      };
    },
  };
}
