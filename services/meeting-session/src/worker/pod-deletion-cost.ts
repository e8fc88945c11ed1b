/**
 * On Kubernetes, the worker's own pod carries `controller.kubernetes.io/pod-deletion-cost` equal to
 * its live meetings. A ReplicaSet that scales in removes the pods of lowest cost first, so the
 * autoscaler takes empty workers before busy ones (docs/deploy/kubernetes.md, "Scaling and
 * draining"). It is a preference, not a guarantee: a busy worker that is picked anyway drains on
 * SIGTERM (worker.ts stop()), so the cost only spares work, never a meeting.
 *
 * The pod patches itself through the API server with its service account (deploy/kubernetes:
 * a Role allowing `patch` on pods, narrowed by an admission policy to this one annotation of the
 * caller's own pod). Plain node:https: a client library would weigh more than this whole module.
 * Outside a cluster (no POD_NAME / POD_NAMESPACE from the downward API, no KUBERNETES_SERVICE_HOST
 * or no token) it does nothing.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { z } from 'zod';
import { envString, parseEnv } from '@notetaker/config';
import type { Logger } from '@notetaker/observability';

export const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const IN_CLUSTER_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** A failed patch is tried again after this long (the API server restarting, a network blip). */
const RETRY_MS = 5_000;
const REQUEST_TIMEOUT_MS = 5_000;

/** The variables this module reads: Kubernetes sets the service's, the manifests the pod's. */
export const podEnv = z.object({
  POD_NAME: envString,
  POD_NAMESPACE: envString,
  KUBERNETES_SERVICE_HOST: envString,
  KUBERNETES_SERVICE_PORT: z.string().default('443'),
  /** Where the token and ca.crt are; the tests point it at their own fake API server's. */
  KUBERNETES_SERVICEACCOUNT_DIR: z.string().default(IN_CLUSTER_ACCOUNT_DIR),
});

export interface DeletionCost {
  /** The worker's live meetings now; patched at once, or after the patch in flight. */
  set(meetings: number): void;
  /** Resolves once the last value set is on the pod, or after `timeoutMs` (a stopping worker). */
  settled(timeoutMs: number): Promise<void>;
}

/** The pod's deletion cost, or null outside a cluster. */
export function podDeletionCost(env: NodeJS.ProcessEnv, logger: Logger): DeletionCost | null {
  const e = parseEnv(podEnv, env);
  const dir = e.KUBERNETES_SERVICEACCOUNT_DIR;
  if (!e.POD_NAME || !e.POD_NAMESPACE || !e.KUBERNETES_SERVICE_HOST || !fs.existsSync(path.join(dir, 'token'))) {
    return null;
  }
  const target = {
    host: e.KUBERNETES_SERVICE_HOST,
    port: Number(e.KUBERNETES_SERVICE_PORT),
    path: `/api/v1/namespaces/${encodeURIComponent(e.POD_NAMESPACE)}/pods/${encodeURIComponent(e.POD_NAME)}`,
  };
  const log = logger.child({ pod: e.POD_NAME });
  const caFile = path.join(dir, 'ca.crt');

  const patch = (value: number) =>
    new Promise<void>((resolve, reject) => {
      // Read each time: the kubelet rotates the projected token in place.
      const token = fs.readFileSync(path.join(dir, 'token'), 'utf8').trim();
      const body = JSON.stringify({ metadata: { annotations: { [DELETION_COST_ANNOTATION]: String(value) } } });
      const req = https.request(
        {
          ...target,
          method: 'PATCH',
          ca: fs.existsSync(caFile) ? fs.readFileSync(caFile) : undefined,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/merge-patch+json',
            'content-length': Buffer.byteLength(body),
            accept: 'application/json',
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text = (text + chunk).slice(0, 500)));
          res.on('end', () =>
            (res.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}: ${text}`)),
          );
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });

  let wanted = 0;
  let onPod: number | null = null;
  let failing = false;
  let pumping: Promise<void> | null = null;
  let retry: NodeJS.Timeout | null = null;
  const idle = new Set<() => void>();

  // One patch at a time, always of the latest value: starts and ends in a burst make few requests.
  const pump = async () => {
    while (onPod !== wanted) {
      const value = wanted;
      try {
        await patch(value);
        onPod = value;
        if (failing) log.info({ deletionCost: value }, 'pod deletion cost set again');
        failing = false;
      } catch (err) {
        if (!failing) log.warn({ err, deletionCost: value }, 'could not set the pod deletion cost; retrying');
        failing = true;
        retry ??= setTimeout(() => {
          retry = null;
          start();
        }, RETRY_MS);
        retry.unref();
        return;
      }
    }
    for (const wake of [...idle]) wake();
  };
  const start = () => {
    pumping ??= pump().finally(() => (pumping = null));
  };

  log.info({ apiServer: `${target.host}:${target.port}` }, 'keeping the pod deletion cost equal to live meetings');
  return {
    set(meetings) {
      wanted = meetings;
      start();
    },
    settled(timeoutMs) {
      if (onPod === wanted && !pumping) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          idle.delete(done);
          clearTimeout(timer);
          if (retry) clearTimeout(retry);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        idle.add(done);
      });
    },
  };
}
