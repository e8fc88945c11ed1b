/**
 * The transcript-store service: segments in its own store, markdown documents under CONTENT_ROOT,
 * and search over saved transcripts. Served on `svc.transcripts.*` in the `q.transcripts` queue
 * group; every instance also follows `broadcast.transcripts.saved` to keep its search index whole when
 * another instance wrote a document.
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
import { RecordingLibrary } from './recordings/library.js';
import { recordingStorageFromEnv } from './recordings/index.js';

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
}

export function transcriptStoreService(): ServiceDefinition<RunningTranscriptStore> {
  return {
    name: 'transcript-store',
    async start(ctx: ServiceContext): Promise<RunningTranscriptStore> {
      const env = parseEnv(transcriptStoreEnv, ctx.config.env);
      const origin = crypto.randomUUID();
      const segments = new Segments(ctx.store);
      const storage = recordingStorageFromEnv({
        env: ctx.config.env,
        dataDir: ctx.config.dataDir,
        fsync: env.TRANSCRIPT_FSYNC,
        logger: ctx.logger,
      });
      const recordings = new RecordingLibrary(ctx.store, storage, ctx.logger);
      const documents = new Documents(ctx.store, segments, ctx.config.contentRoot, {
        fsync: env.TRANSCRIPT_FSYNC,
        recordingOf: (meetingId) => recordings.get(meetingId),
      });
      await segments.init();
      await documents.init();
      await recordings.init();
      const indexer = new Indexer(documents, segments, ctx.logger);
      ctx.logger.info({ storage: storage.description }, 'recordings are kept in ' + storage.description);

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
            if (flushed.fresh.segments.length > 0) {
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
        answer(ctx.bus, routes.recordings.append, (req) => recordings.append(req), queue),
        answer(ctx.bus, routes.recordings.finish, (req) => recordings.finish(req), queue),
        answer(ctx.bus, routes.recordings.get, (req) => recordings.get(req.meetingId), queue),
        answer(
          ctx.bus,
          routes.recordings.read,
          async (req) => ({ data: (await recordings.read(req.meetingId, req.start, req.end)).toString('base64') }),
          queue,
        ),
        answer(ctx.bus, routes.recordings.delete, (req) => recordings.delete(req.meetingId), queue),
        answer(ctx.bus, routes.recordings.expire, (req) => recordings.expire(req.before), queue),
        answer(ctx.bus, transcripts.segments, (req) => segments.page(req.meetingId, req.fromIndex), queue),
        answer(ctx.bus, transcripts.document, (req) => documents.read(req.meetingId, req.offset, req.version), queue),
        answer(
          ctx.bus,
          transcripts.search,
          (req) => ({ results: indexer.search(req.q, { project: req.project, limit: req.limit }) }),
          queue,
        ),
      );

      return {
        indexedSegments: () => indexer.index.size,
        indexReady: () => rebuilt,
        async stop() {
          indexer.stop();
          await Promise.all(subs.map((s) => s.unsubscribe()));
          await segments.flush();
          await rebuilt;
          await storage.close();
        },
      };
    },
  };
}
