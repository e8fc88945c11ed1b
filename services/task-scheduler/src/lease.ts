/**
 * Distributed mode: exactly one scheduler instance fires the cron ticks. The instances share the
 * store, so the lease is a document there (works on MongoDB and on the embedded store alike):
 * the holder renews it every ttl/4; any other instance takes it once it has expired, i.e. within
 * ttl (default 20 s) of the holder dying. A holder stops firing as soon as its own view of the
 * lease runs out, before anyone else can take it. Each instance also leaves a heartbeat, so the
 * holder can tell which instances' running executions are orphans (see executions.ts).
 */
import type { Collection, Document } from '@notetaker/store';
import type { Logger } from '@notetaker/observability';

const LEASE_ID = 'scheduler';

interface LeaseDoc extends Document {
  holder: string;
  expiresAt: number;
}

interface InstanceDoc extends Document {
  seenAt: number;
  host: string;
}

export interface LeaseOptions {
  leases: Collection<LeaseDoc>;
  instances: Collection<InstanceDoc>;
  instanceId: string;
  host: string;
  ttlMs: number;
  logger: Logger;
  /** Called after each renewal round, with whether this instance holds the lease now. */
  onRound?: (held: boolean, gained: boolean) => Promise<void> | void;
}

export class SchedulerLease {
  private heldUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: LeaseOptions) {}

  static collections(store: { collection<T extends Document>(name: string): Collection<T> }) {
    return { leases: store.collection<LeaseDoc>('leases'), instances: store.collection<InstanceDoc>('instances') };
  }

  /** True while this instance may fire ticks (its lease has not run out by its own clock). */
  held(): boolean {
    return Date.now() < this.heldUntil;
  }

  async start(): Promise<void> {
    await this.runRound();
    const every = Math.max(250, Math.floor(this.options.ttlMs / 4));
    this.timer = setInterval(() => {
      this.round = this.round.then(() => this.runRound());
    }, every);
    this.timer.unref?.();
  }

  /** Instances with a heartbeat younger than the ttl, this one included. */
  async liveInstances(): Promise<string[]> {
    const fresh = await this.options.instances.find(
      { seenAt: { $gte: Date.now() - this.options.ttlMs } },
      { projection: { _id: 1 } },
    );
    return fresh.map((doc) => doc._id);
  }

  /** Stops renewing; `release` hands the lease over at once (a clean shutdown). */
  async stop({ release = true } = {}): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.round;
    const wasHolder = this.held();
    this.heldUntil = 0;
    if (!release) return;
    const { leases, instances, instanceId } = this.options;
    if (wasHolder) await leases.deleteOne({ _id: LEASE_ID, holder: instanceId }).catch(() => undefined);
    await instances.deleteOne({ _id: instanceId }).catch(() => undefined);
  }

  private async runRound(): Promise<void> {
    if (this.stopped) return;
    const before = this.held();
    try {
      await this.heartbeat();
      await this.acquireOrRenew();
    } catch (err) {
      this.options.logger.warn({ err }, 'scheduler lease round failed');
    }
    const held = this.held();
    if (held !== before) this.options.logger.info({ held }, held ? 'scheduler lease taken' : 'scheduler lease lost');
    try {
      await this.options.onRound?.(held, held && !before);
    } catch (err) {
      this.options.logger.warn({ err }, 'scheduler lease follow-up failed');
    }
  }

  private async heartbeat(): Promise<void> {
    const { instances, instanceId, host } = this.options;
    await instances.updateOne({ _id: instanceId }, { $set: { seenAt: Date.now(), host } }, { upsert: true });
  }

  private async acquireOrRenew(): Promise<void> {
    const { leases, instanceId, ttlMs } = this.options;
    const now = Date.now();
    try {
      const doc = await leases.findOneAndUpdate(
        { _id: LEASE_ID, $or: [{ holder: instanceId }, { expiresAt: { $lt: now } }] },
        { $set: { holder: instanceId, expiresAt: now + ttlMs } },
        { upsert: true },
      );
      // Our own view ends a margin before the stored expiry: we stop before anyone may start.
      this.heldUntil = doc?.holder === instanceId ? now + ttlMs - Math.floor(ttlMs / 4) : 0;
    } catch (err) {
      // The upsert collided with a live lease of another instance: not ours.
      if ((err as { code?: string }).code === 'duplicate_key') this.heldUntil = 0;
      else throw err;
    }
  }
}
