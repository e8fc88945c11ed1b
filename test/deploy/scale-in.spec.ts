/**
 * Scale-in never cuts a meeting (docs/deploy/kubernetes.md, "Scaling and draining"), on a real
 * meeting-session worker process as its container runs it (test/deploy/support/standalone-worker.ts)
 * over a nats-server, with a registry, transcript-store and webhook-emitter in this process, and a
 * fake Kubernetes API server on loopback: https with a self-signed certificate, the token and CA in
 * a folder as the kubelet mounts them. The fake records the worker's patches of its own pod.
 *
 * - the pod's `controller.kubernetes.io/pod-deletion-cost` follows the live meetings as they start
 *   and end, so a ReplicaSet scaling in removes empty workers first;
 * - on SIGTERM the worker takes no more meetings, lets its meetings end by themselves up to
 *   WORKER_STOP_GRACE_MS, then leaves the rest (`ended` / `worker_shutdown`, the document saved
 *   first) and exits cleanly: no meeting ends in error.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { generate } from 'selfsigned';
import { ServiceError, type EventEnvelope } from '@notetaker/contracts';
import { silentLogger } from '@notetaker/observability';
import { spawnChild, type Child } from '../../services/meeting-session/test/support/child.js';
import { TOKEN_CALLER } from '../../services/meeting-session/test/support/harness.js';
import { registryOnNats } from '../../services/meeting-session/test/support/registry-on-nats.js';
import {
  DELETION_COST_ANNOTATION,
  podDeletionCost,
} from '../../services/meeting-session/src/worker/pod-deletion-cost.js';
import { eventually } from '../support/wait.js';

const WORKER = path.join(import.meta.dirname, 'support/standalone-worker.ts');
const TOKEN = 'test-service-account-token';
const POD = { name: 'meeting-worker-7d9c-abcde', namespace: 'notetaker' };

interface Patch {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  cost: string | undefined;
}

/** The API server's part the worker uses: PATCH of its own pod, each recorded. */
async function fakeApiServer(accountDir: string) {
  const pems = await generate([{ name: 'commonName', value: 'kubernetes' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7 as const, ip: '127.0.0.1' }] }],
  });
  fs.writeFileSync(path.join(accountDir, 'token'), `${TOKEN}\n`);
  fs.writeFileSync(path.join(accountDir, 'ca.crt'), pems.cert);
  const patches: Patch[] = [];
  const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}') as { metadata?: { annotations?: Record<string, string> } };
      patches.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        cost: parsed.metadata?.annotations?.[DELETION_COST_ANNOTATION],
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Pod', metadata: { name: POD.name } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    patches,
    /** The deletion cost on the pod now, as the last patch left it. */
    cost: () => patches.at(-1)?.cost,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Consecutive repeats dropped: the values the annotation took. */
const steps = (values: Array<string | undefined>) => values.filter((v, i) => i === 0 || v !== values[i - 1]);

describe('bot workers on Kubernetes: deletion cost and drain (a worker process, NATS, a fake API server)', function () {
  this.timeout(60_000);
  const suite = registryOnNats({ leaseMs: 3000 });
  const { h } = suite;

  async function startWorker(graceMs: number) {
    const accountDir = suite.tempDir('k8s-account-');
    const api = await fakeApiServer(accountDir);
    const worker = spawnChild(WORKER, {
      env: {
        NATS_URL: suite.url,
        DATA_DIR: suite.tempDir('meeting-worker-'),
        PORT: '0',
        LOG_LEVEL: 'info',
        MEETING_SESSION_ROLE: 'worker',
        WORKER_LEASE_MS: '3000',
        WORKER_STOP_GRACE_MS: String(graceMs),
        WORKER_DRAIN_MS: '10000',
        ALONE_TIMEOUT_MS: '600000',
        FLUSH_INTERVAL_MS: '200',
        // What the pod spec gives it (downward API) and what Kubernetes sets in every container.
        POD_NAME: POD.name,
        POD_NAMESPACE: POD.namespace,
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: String(api.port),
        KUBERNETES_SERVICEACCOUNT_DIR: accountDir,
      },
    });
    await worker.waitFor((f) => f.msg === 'service started', 20_000, 'its start');
    // A (re)started container sets its pod's cost first: nothing live yet.
    await eventually(() => api.cost() === '0', 'the deletion cost 0 at start');
    return { worker, api };
  }

  /** Starts a meeting, waits for it to be live and for the pod's cost to count it. */
  async function startMeeting(api: { cost(): string | undefined }, live: number) {
    const { meetingId } = await h.start();
    await h.waitForEvent(meetingId, (e) => e.payload.status === 'live');
    await eventually(() => api.cost() === String(live), `the deletion cost ${live}`);
    return meetingId;
  }

  const stop = (meetingId: string) => h.request('stop', { caller: TOKEN_CALLER, meetingId });
  const lastStatus = (meetingId: string) =>
    h
      .events(meetingId)
      .filter((e: EventEnvelope) => e.type === 'meeting_status')
      .at(-1)?.payload;
  const terminate = async (worker: Child) => {
    const at = performance.now();
    process.kill(worker.pid, 'SIGTERM');
    await worker.waitFor((f) => f.msg === 'stopping: waiting for meetings to end' || f.msg === 'shutting down');
    return at;
  };

  it('follows live meetings with the deletion cost; on SIGTERM takes no meeting, waits out the grace, then leaves the rest cleanly', async () => {
    const GRACE_MS = 3000;
    const { worker, api } = await startWorker(GRACE_MS);
    try {
      const meetings: string[] = [];
      for (let live = 1; live <= 4; live++) meetings.push(await startMeeting(api, live));
      await stop(meetings[0]);
      await eventually(() => api.cost() === '3', 'the deletion cost 3 after a stop');

      const sigterm = await terminate(worker);
      await worker.waitFor((f) => f.msg === 'stopping: waiting for meetings to end', 5000, 'the drain');
      // Out of the placement queue group: a start now finds no seat and is answered 503, retryable.
      const refused = await h.start().then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(ServiceError);
      expect([(refused as ServiceError).status, (refused as ServiceError).retryable]).to.deep.equal([503, true]);
      // A meeting stopped during the grace ends as any stop does.
      await stop(meetings[1]);
      await h.waitForEvent(meetings[1], (e) => e.payload.status === 'ended');
      await eventually(() => api.cost() === '2', 'the deletion cost 2 during the drain');

      await worker.exited;
      const exitMs = performance.now() - sigterm;
      expect(worker.facts.some((f) => f.msg === 'stopped cleanly')).to.equal(true);
      // The grace was waited out, then the two still live were left within the drain bound.
      expect(exitMs).to.be.within(GRACE_MS, GRACE_MS + 10_000);
      for (const meetingId of meetings.slice(2)) {
        const tail = h.events(meetingId).slice(-3);
        expect(tail.map((e) => e.type)).to.deep.equal(['meeting_status', 'document_saved', 'meeting_status']);
        expect(tail[0].payload).to.include({ status: 'leaving', reason: 'worker_shutdown' });
        expect(tail[2].payload).to.include({ status: 'ended', reason: 'worker_shutdown' });
      }
      const cut = meetings.filter((id) => (lastStatus(id) as { status?: string } | undefined)?.status !== 'ended');
      expect(cut, 'meetings cut').to.deep.equal([]);

      // Every patch: the worker's own pod, its token, a merge patch of the one annotation.
      for (const p of api.patches) {
        expect(p).to.deep.include({
          method: 'PATCH',
          path: `/api/v1/namespaces/${POD.namespace}/pods/${POD.name}`,
          authorization: `Bearer ${TOKEN}`,
          contentType: 'application/merge-patch+json',
        });
      }
      const taken = steps(api.patches.map((p) => p.cost));
      expect(taken.slice(0, 7)).to.deep.equal(['0', '1', '2', '3', '4', '3', '2']);
      expect(taken.at(-1)).to.equal('0');
      console.log(
        `      SIGTERM with 3 live meetings (grace ${GRACE_MS} ms): one stopped during the grace, 2 left ` +
          `worker_shutdown; exit after ${Math.round(exitMs)} ms; meetings cut: ${cut.length}; ` +
          `deletion cost took ${taken.join(' -> ')}`,
      );
    } finally {
      await worker.kill();
      await api.close();
    }
  });

  it('exits as soon as its last meeting ends, well within the grace', async () => {
    const GRACE_MS = 30_000;
    const { worker, api } = await startWorker(GRACE_MS);
    try {
      const meetings = [await startMeeting(api, 1), await startMeeting(api, 2)];
      const sigterm = await terminate(worker);
      await worker.waitFor((f) => f.msg === 'stopping: waiting for meetings to end', 5000, 'the drain');
      for (const meetingId of meetings) await stop(meetingId);
      await worker.exited;
      const exitMs = performance.now() - sigterm;
      expect(worker.facts.some((f) => f.msg === 'stopped cleanly')).to.equal(true);
      expect(exitMs).to.be.below(GRACE_MS / 2);
      for (const meetingId of meetings)
        expect(lastStatus(meetingId)).to.include({ status: 'ended', reason: 'stopped' });
      expect(api.cost()).to.equal('0');
      console.log(
        `      SIGTERM with 2 live meetings (grace ${GRACE_MS} ms), both stopped by their users: exit after ` +
          `${Math.round(exitMs)} ms; meetings cut: 0`,
      );
    } finally {
      await worker.kill();
      await api.close();
    }
  });

  it('does nothing outside a cluster', () => {
    const logger = silentLogger();
    expect(podDeletionCost({}, logger)).to.equal(null);
    // The downward API's names alone are not a cluster: no API server, no token.
    expect(podDeletionCost({ POD_NAME: 'x', POD_NAMESPACE: 'y' }, logger)).to.equal(null);
    const empty = suite.tempDir('k8s-no-token-');
    expect(
      podDeletionCost(
        {
          POD_NAME: 'x',
          POD_NAMESPACE: 'y',
          KUBERNETES_SERVICE_HOST: '127.0.0.1',
          KUBERNETES_SERVICEACCOUNT_DIR: empty,
        },
        logger,
      ),
    ).to.equal(null);
  });
});
