/**
 * The transcript-store service: segments in its own store, markdown documents under CONTENT_ROOT,
 * and search over saved transcripts. Served on `svc.transcripts.*` in the `q.transcripts` queue
 * group; every instance also follows `svc.transcripts.saved` to keep its search index whole when
 * another instance wrote a document.
 */
import crypto from 'node:crypto';
import {
  queueGroup,
  svc,
  transcriptAppend,
  transcriptDocumentRequest,
  transcriptFlush,
  transcriptOpen,
  transcriptSavedNotice,
  transcriptSearch,
  transcriptSegmentsRequest,
} from '@notetaker/contracts';
import { parseEnv, type RunningService, type ServiceContext, type ServiceDefinition } from '@notetaker/kit';
import type { Subscription } from '@notetaker/bus';
import { z } from 'zod';
import { Documents } from './documents.js';
import { Indexer } from './indexer.js';
import { Segments } from './segments.js';
import { parseMessage } from './parse.js';

const envSchema = z.object({
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
      const env = parseEnv(envSchema, ctx.config.env);
      const origin = crypto.randomUUID();
      const segments = new Segments(ctx.store);
      const documents = new Documents(ctx.store, segments, ctx.config.contentRoot, { fsync: env.TRANSCRIPT_FSYNC });
      await segments.init();
      await documents.init();
      const indexer = new Indexer(documents, segments, ctx.logger);

      const subs: Subscription[] = [];
      const queue = { queue: queueGroup('transcripts') };
      const serve = (verb: string, handler: (data: unknown) => unknown) =>
        subs.push(ctx.bus.serve(svc('transcripts', verb), handler, queue));

      // Follow other instances' flushes before reading the store, so none falls between the two.
      subs.push(
        ctx.bus.subscribe(svc('transcripts', 'saved'), async (data) => {
          const notice = transcriptSavedNotice.safeParse(data);
          if (notice.success && notice.data.origin !== origin) {
            await indexer.follow(notice.data.meetingId, notice.data.lastIndex);
          }
        }),
      );
      const rebuilt = indexer.rebuildUntilDone();

      serve('open', async (data) => ({ documentPath: await documents.open(parseMessage(transcriptOpen, data)) }));
      serve('append', async (data) => {
        const req = parseMessage(transcriptAppend, data);
        return { stored: await segments.append(req.meetingId, req.index, req.segment) };
      });
      serve('flush', async (data) => {
        const flushed = await documents.flush(parseMessage(transcriptFlush, data));
        if (!flushed) return null;
        if (flushed.fresh.segments.length > 0) {
          // Searchable before the flush is answered: "the index follows every flush".
          await indexer.add(flushed.fresh);
          ctx.bus.publish(svc('transcripts', 'saved'), {
            meetingId: flushed.fresh.meta.meetingId,
            lastIndex: flushed.fresh.meta.lastIndex,
            origin,
          } satisfies z.infer<typeof transcriptSavedNotice>);
        }
        return flushed.result;
      });
      serve('segments', async (data) => {
        const req = parseMessage(transcriptSegmentsRequest, data);
        return segments.page(req.meetingId, req.fromIndex);
      });
      serve('document', async (data) => {
        const req = parseMessage(transcriptDocumentRequest, data);
        return documents.read(req.meetingId, req.offset, req.version);
      });
      serve('search', (data) => {
        const req = parseMessage(transcriptSearch, data);
        return { results: indexer.search(req.q, { project: req.project, limit: req.limit }) };
      });

      return {
        indexedSegments: () => indexer.index.size,
        indexReady: () => rebuilt,
        async stop() {
          indexer.stop();
          await Promise.all(subs.map((s) => s.unsubscribe()));
          await segments.flush();
          await rebuilt;
        },
      };
    },
  };
}
