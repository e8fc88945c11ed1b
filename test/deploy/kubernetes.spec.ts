/**
 * deploy/kubernetes (docs/deploy/kubernetes.md), checked without a cluster:
 *
 * - every root (base, with-dependencies) and every optional component on each renders with
 *   `kubectl kustomize`, and so does an operator's overlay that adds the Secret's values;
 * - every rendered object is valid against the Kubernetes API schemas of a pinned version
 *   (kubernetes-models 5.1.0: the OpenAPI of Kubernetes 1.36, compiled; @kubernetes-models/keda
 *   2.0.0 for the ScaledObject), offline. Like kubeconform without -strict, an unknown field is
 *   not an error (the OpenAPI leaves objects open); types, enums, formats and required fields are;
 * - every container runs an entry point `npm run build` makes (the images copy the built tree), with
 *   only the environment names its service's config schemas read, no secret from a ConfigMap, and
 *   every variable a service reads either set or documented with its default;
 * - probes, ports and the autoscalers' metric names are the ones the code serves;
 * - the rules the issue sets: non-root, no capability, read-only root, PDBs, Services, the shared
 *   content volume, the workers' shared memory and grace, the network boundaries;
 * - the recordings: transcript-store's bucket settings from the ConfigMap and credentials from the
 *   Secret, parsed by the service's own schema; egress to the bucket; files only on a volume of
 *   one replica's (the recordings-volume component);
 * - the admission policy's CEL, evaluated by a CEL implementation (@marcbachmann/cel-js) on the
 *   requests it must allow and refuse (not by an API server: its compilation is not checked here).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { evaluate as cel } from '@marcbachmann/cel-js';
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { baseEnvSchema } from '@notetaker/config';
import { webEnvSchema } from '../../services/gateway/src/web/config.js';
import { mcpEnvSchema } from '../../services/gateway/src/mcp/config.js';
import { grantEnvSchema } from '../../services/gateway/src/identity/grants.js';
import { meetingSessionEnv } from '../../services/meeting-session/src/config.js';
import { speechEngineEnv } from '../../services/meeting-session/src/transcription/speech-engine-config.js';
import { textToSpeechEnv } from '../../services/meeting-session/src/speech/text-to-speech-config.js';
import { podEnv } from '../../services/meeting-session/src/worker/pod-deletion-cost.js';
import { transcriptStoreEnv } from '../../services/transcript-store/src/service.js';
import { recordingsEnv } from '../../services/transcript-store/src/recordings/index.js';
import { schedulerEnvSchema } from '../../services/task-scheduler/src/env.js';
import { emitterEnvSchema } from '../../services/webhook-emitter/src/config.js';

const root = path.resolve(import.meta.dirname, '../..');
const k8s = path.join(root, 'deploy/kubernetes');

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered YAML is walked as plain data */
type Obj = Record<string, any>;

const ROOTS = ['base', 'with-dependencies'];
const COMPONENTS = ['keda', 'prometheus-adapter', 'content-rwo', 'recordings-volume'];

/** Each container's service, and the schemas its configuration is parsed with. */
const keys = (...schemas: Array<z.ZodObject>) => schemas.flatMap((s) => Object.keys(s.shape));
const SERVICE_ENV: Record<string, string[]> = {
  gateway: keys(baseEnvSchema, webEnvSchema, mcpEnvSchema, grantEnvSchema),
  'meeting-session': keys(baseEnvSchema, meetingSessionEnv, podEnv, speechEngineEnv, textToSpeechEnv),
  'transcript-store': keys(baseEnvSchema, transcriptStoreEnv, recordingsEnv),
  'project-catalog': keys(baseEnvSchema),
  'task-scheduler': keys(baseEnvSchema, schedulerEnvSchema),
  'webhook-emitter': keys(baseEnvSchema, emitterEnvSchema),
};
/** Read by node or Chromium, not by a schema: allowed where they say. */
const RUNTIME_ENV: Record<string, string[]> = { NODE_OPTIONS: Object.keys(SERVICE_ENV), HOME: ['meeting-session'] };
const SECRET_NAMES = [
  'SECRETS_KEY',
  'NATS_URL',
  'MONGODB_URL',
  'LLM_API_KEY',
  'STT_API_KEY',
  'RECORDINGS_S3_ACCESS_KEY_ID',
  'RECORDINGS_S3_SECRET_ACCESS_KEY',
];
const APP = [
  'gateway',
  'meeting-registry',
  'meeting-worker',
  'transcript-store',
  'project-catalog',
  'task-scheduler',
  'webhook-emitter',
];

function kustomize(dir: string): Obj[] {
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  return parseAllDocuments(text).map((doc) => doc.toJS() as Obj);
}

/** A kustomization of `resources` and `components`, in a temporary folder beside nothing of ours. */
function composed(
  resources: string[],
  components: string[],
  extra = '',
  files: Record<string, string> = {},
): { dir: string; objects: Obj[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kustomize-'));
  const rel = (p: string) => path.relative(dir, path.join(k8s, p));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  fs.writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    `resources: [${resources.map(rel).join(', ')}]\ncomponents: [${components.map(rel).join(', ')}]\n${extra}`,
  );
  return { dir, objects: kustomize(dir) };
}

const ofKind = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const named = (objects: Obj[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  expect(found, `${kind}/${name}`).to.exist;
  return found!;
};
const workloads = (objects: Obj[]) => objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
const podSpec = (o: Obj): Obj => o.spec.template.spec;
const counts = (objects: Obj[]) => {
  const by = new Map<string, number>();
  for (const o of objects) by.set(o.kind, (by.get(o.kind) ?? 0) + 1);
  return [...by].map(([kind, n]) => `${n} ${kind}`).join(', ');
};

function matchesSelector(selector: Obj, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'In' && !e.values.includes(labels[e.key])) return false;
    if (e.operator === 'NotIn' && e.values.includes(labels[e.key])) return false;
  }
  return true;
}

/**
 * kustomize folds a long base64 value over lines; the API server's decoder skips the newlines, the
 * schema's "byte" format does not.
 */
const secretData = (o: Obj): Obj =>
  o.kind === 'Secret' && o.data
    ? { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, String(v).replace(/\s+/g, '')])) }
    : o;

/** The model class validating an apiVersion/kind (kubernetes-models' module layout). */
async function modelOf(apiVersion: string, kind: string): Promise<{ new (data: Obj): { validate(): void } }> {
  const module = apiVersion.startsWith('keda.sh/')
    ? `@kubernetes-models/keda/${apiVersion}`
    : `kubernetes-models/${apiVersion}`;
  const exports = (await import(module)) as Record<string, { new (data: Obj): { validate(): void } }>;
  const model = exports[kind];
  if (!model) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return model;
}

describe('Kubernetes manifests (deploy/kubernetes, kubectl kustomize, offline schemas)', function () {
  this.timeout(240_000);
  const rendered = new Map<string, Obj[]>();
  const dirs: string[] = [];

  before(() => {
    const version = execFileSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
    const kustomizeVersion = (JSON.parse(version) as { kustomizeVersion?: string }).kustomizeVersion ?? 'none';
    expect(
      Number(/^v(\d+)/.exec(kustomizeVersion)?.[1] ?? 0),
      `kubectl's kustomize is ${kustomizeVersion}; the manifests use components and labels (kustomize v5, kubectl >= 1.27)`,
    ).to.be.at.least(5);
    for (const name of ROOTS) rendered.set(name, kustomize(path.join(k8s, name)));
    for (const base of ROOTS) {
      for (const component of COMPONENTS) {
        const { dir, objects } = composed([base], [component]);
        dirs.push(dir);
        rendered.set(`${base} + ${component}`, objects);
      }
    }
    // The entry points the containers run are the build's (compiled.spec.ts builds it first).
    const missing = Object.keys(SERVICE_ENV).some(
      (s) => !fs.existsSync(path.join(root, 'services', s, 'dist/main.js')),
    );
    if (missing) execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'pipe' });
  });

  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders every root and every component on each', () => {
    for (const [name, objects] of rendered) {
      expect(objects.length, name).to.be.greaterThan(0);
      console.log(`      ${name}: ${objects.length} objects (${counts(objects)})`);
    }
  });

  it('renders only valid objects, against the Kubernetes 1.36 API schemas and KEDA 2', async () => {
    let validated = 0;
    const seen = new Set<string>();
    for (const [name, objects] of rendered) {
      for (const object of objects) {
        const Model = await modelOf(object.apiVersion, object.kind);
        try {
          new Model(secretData(object)).validate();
        } catch (err) {
          throw new Error(`${name}: ${object.kind}/${object.metadata?.name}: ${(err as Error).message}`);
        }
        validated++;
        seen.add(`${object.apiVersion} ${object.kind}`);
      }
    }
    console.log(`      ${validated} objects valid (${seen.size} kinds), 0 invalid`);
  });

  it('becomes installable once an overlay adds SECRETS_KEY, and reads every credential from the Secret', () => {
    // As docs/deploy/kubernetes.md shows: the operator's own folder, the values in a local file.
    const { dir, objects: withKey } = composed(
      ['with-dependencies'],
      [],
      'secretGenerator:\n  - name: notetaker-secrets\n    behavior: merge\n    envs: [secrets.env]\n',
      { 'secrets.env': 'SECRETS_KEY=not-a-real-key\n' },
    );
    dirs.push(dir);
    const objects = rendered.get('with-dependencies')!;
    const secret = ofKind(withKey, 'Secret')[0];
    expect(Object.keys(secret.data).sort()).to.deep.equal(['MONGODB_URL', 'NATS_URL', 'SECRETS_KEY']);
    expect(objects.length).to.equal(withKey.length);
    // Every required secretKeyRef now finds its key (kustomize renamed the Secret with its hash).
    for (const w of workloads(withKey)) {
      for (const c of podSpec(w).containers) {
        for (const e of c.env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref) continue;
          expect(ref.name, `${c.name} ${e.name}`).to.equal(secret.metadata.name);
          if (!ref.optional) expect(secret.data, `${c.name} needs ${ref.key}`).to.have.property(ref.key);
        }
      }
    }
    // Nothing secret in the ConfigMap; the credentials come only from the Secret.
    for (const cm of ofKind(withKey, 'ConfigMap')) {
      for (const key of Object.keys(cm.data ?? {})) {
        expect(SECRET_NAMES, `ConfigMap key ${key}`).to.not.include(key);
        expect(key, 'a secret-looking ConfigMap key').to.not.match(/KEY$|SECRET|PASSWORD|TOKEN/);
      }
    }
  });

  it("runs each service's built entry point with only the variables its config schemas read", () => {
    const dockerfile = fs.readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
    const objects = rendered.get('with-dependencies')!;
    const config = ofKind(objects, 'ConfigMap')[0].data as Record<string, string>;
    const everyName = new Set(Object.values(SERVICE_ENV).flat());
    for (const key of Object.keys(config))
      expect(everyName, `ConfigMap key ${key} is read by no service`).to.include(key);
    for (const w of workloads(objects).filter((o) => APP.includes(o.metadata.name))) {
      const [container] = podSpec(w).containers;
      const [program, entry] = container.command as string[];
      const service = /^services\/([a-z-]+)\/dist\/main\.js$/.exec(entry)?.[1];
      expect(program, w.metadata.name).to.equal('node');
      expect(service, `${w.metadata.name} runs ${entry}`).to.be.oneOf(Object.keys(SERVICE_ENV));
      expect(fs.existsSync(path.join(root, entry)), `${entry} is built`).to.equal(true);
      expect(container.workingDir, 'the image WORKDIR /app').to.equal(undefined);
      // The image of that service: one per service from the `service` target, meeting-session's
      // own target (with Chromium) for the registry and the workers.
      expect(container.image).to.match(new RegExp(`^notetaker/${service}:`));
      expect(dockerfile).to.contain(service === 'meeting-session' ? 'AS meeting-session' : 'AS service');
      const names = [...(container.env ?? []).map((e: Obj) => e.name as string), ...Object.keys(config)];
      for (const name of (container.env ?? []).map((e: Obj) => e.name as string)) {
        const allowed = SERVICE_ENV[service!].includes(name) || RUNTIME_ENV[name]?.includes(service!);
        expect(allowed, `${w.metadata.name} sets ${name}, which ${service} does not read`).to.equal(true);
      }
      expect(names).to.include('NATS_URL');
      const options = (container.env ?? []).find((e: Obj) => e.name === 'NODE_OPTIONS')?.value as string | undefined;
      if (options) expect(options.split(/\s+/), 'keeps the image condition').to.include('--conditions=production');
    }
    // The workers hold no database credentials; everything else with a store gets MONGODB_URL.
    const envOf = (name: string) =>
      (podSpec(named(objects, 'Deployment', name)).containers[0].env as Obj[]).map((e) => e.name);
    expect(envOf('meeting-worker')).to.not.include('MONGODB_URL');
    for (const name of APP.filter((n) => n !== 'meeting-worker')) expect(envOf(name), name).to.include('MONGODB_URL');
  });

  it('leaves every variable it does not set to a default the docs state', () => {
    const docs = [
      fs.readFileSync(path.join(root, 'README.md'), 'utf8'),
      ...fs
        .readdirSync(path.join(root, 'docs/services'))
        .map((f) => fs.readFileSync(path.join(root, 'docs/services', f), 'utf8')),
      fs.readFileSync(path.join(root, 'docs/deploy/kubernetes.md'), 'utf8'),
    ].join('\n');
    const objects = rendered.get('with-dependencies')!;
    const set = new Set<string>(Object.keys(ofKind(objects, 'ConfigMap')[0].data));
    for (const w of workloads(objects)) for (const e of podSpec(w).containers[0].env ?? []) set.add(e.name);
    const undocumented = [...new Set(Object.values(SERVICE_ENV).flat())].filter(
      (name) => !set.has(name) && !docs.includes(name),
    );
    expect(undocumented, 'variables neither set nor documented').to.deep.equal([]);
  });

  it('probes /healthz and /readyz on the port the services listen on, and scales on metrics the code exports', () => {
    const ops = fs.readFileSync(path.join(root, 'shared/observability/src/ops.ts'), 'utf8');
    for (const route of ['/healthz', '/readyz', '/metrics']) expect(ops).to.contain(`router.get('${route}'`);
    // The gateway serves them itself, from the same router.
    expect(fs.readFileSync(path.join(root, 'services/gateway/src/app.ts'), 'utf8')).to.contain('opsRouter(');
    const objects = rendered.get('with-dependencies')!;
    const port = Number(ofKind(objects, 'ConfigMap')[0].data.PORT);
    for (const w of ofKind(objects, 'Deployment')) {
      const c = podSpec(w).containers[0];
      expect(c.ports, w.metadata.name).to.deep.equal([{ name: 'http', containerPort: port }]);
      expect(c.livenessProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(c.startupProbe.httpGet).to.deep.equal({ path: '/healthz', port: 'http' });
      expect(c.readinessProbe.httpGet).to.deep.equal({ path: '/readyz', port: 'http' });
      expect(w.spec.template.metadata.annotations['prometheus.io/port']).to.equal(String(port));
      // A Service per Deployment, onto that port.
      const service = named(objects, 'Service', w.metadata.name);
      expect(service.spec.ports.map((p: Obj) => p.targetPort)).to.deep.equal(['http']);
      expect(matchesSelector({ matchLabels: service.spec.selector }, w.spec.template.metadata.labels)).to.equal(true);
    }
    // The Ingresses: /, /api/v1 and /mcp, all onto the gateway.
    const paths = ofKind(objects, 'Ingress').flatMap((i) =>
      i.spec.rules.flatMap((r: Obj) => r.http.paths.map((p: Obj) => `${p.path} -> ${p.backend.service.name}`)),
    );
    expect(paths.sort()).to.deep.equal(['/ -> gateway', '/api/v1 -> gateway', '/mcp -> gateway']);

    const metrics = fs.readFileSync(path.join(root, 'services/meeting-session/src/metrics.ts'), 'utf8');
    const exported = new Set([...metrics.matchAll(/name: '([a-z_]+)'/g)].map((m) => m[1]));
    const queries = [
      named(rendered.get('base + keda')!, 'ScaledObject', 'meeting-worker').spec.triggers[0].metadata.query as string,
      fs.readFileSync(path.join(k8s, 'prometheus-adapter/adapter-rules.yaml'), 'utf8'),
    ];
    for (const query of queries) {
      const used = [...query.matchAll(/\b(meeting_bot_[a-z_]+)\b/g)]
        .map((m) => m[1])
        .filter((n) => n !== 'meeting_bot_seats_utilization');
      expect(used).to.include.members(['meeting_bot_seats_in_use', 'meeting_bot_seats_total']);
      for (const name of used) expect(exported, `${name} in metrics.ts`).to.include(name);
    }
    const hpa = named(rendered.get('base + prometheus-adapter')!, 'HorizontalPodAutoscaler', 'meeting-worker');
    expect(hpa.spec.metrics[0].external.metric.name).to.equal('meeting_bot_seats_utilization');
    expect(fs.readFileSync(path.join(k8s, 'prometheus-adapter/adapter-rules.yaml'), 'utf8')).to.contain(
      'as: meeting_bot_seats_utilization',
    );
    // With an autoscaler, the Deployment leaves the count to it.
    for (const name of ['base + keda', 'base + prometheus-adapter']) {
      expect(named(rendered.get(name)!, 'Deployment', 'meeting-worker').spec, name).to.not.have.property('replicas');
    }
  });

  it('runs every pod non-root with no capability, no privilege escalation, a read-only root and a PDB', () => {
    for (const [name, objects] of rendered) {
      for (const w of workloads(objects)) {
        const spec = podSpec(w);
        const where = `${name}: ${w.metadata.name}`;
        expect(spec.securityContext, where).to.deep.include({
          runAsNonRoot: true,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        for (const c of spec.containers) {
          expect(c.securityContext, where).to.deep.include({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          });
          expect(c.securityContext.privileged ?? false, where).to.equal(false);
          expect(c.resources.requests, where).to.have.keys('cpu', 'memory');
          expect(c.resources.limits, where).to.have.keys('cpu', 'memory');
        }
        // Only the workers hold an API token (their own pod's deletion cost).
        expect(spec.automountServiceAccountToken, where).to.equal(w.metadata.name === 'meeting-worker');
        if (w.kind === 'Job') continue;
        const budgets = ofKind(objects, 'PodDisruptionBudget').filter((p) =>
          matchesSelector(p.spec.selector, w.spec.template.metadata.labels),
        );
        expect(budgets, `${where}: one PodDisruptionBudget`).to.have.length(1);
      }
    }
  });

  it('gives bot workers memory-backed /dev/shm per seat and a grace that covers their drain', () => {
    const worker = named(rendered.get('base')!, 'Deployment', 'meeting-worker');
    const spec = podSpec(worker);
    const env = Object.fromEntries((spec.containers[0].env as Obj[]).map((e) => [e.name, e.value ?? e.valueFrom]));
    const shm = spec.volumes.find((v: Obj) => v.name === 'shm');
    expect(spec.containers[0].volumeMounts).to.deep.include({ name: 'shm', mountPath: '/dev/shm' });
    expect(shm.emptyDir.medium).to.equal('Memory');
    const mib = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? NaN);
    expect(mib(shm.emptyDir.sizeLimit) / Number(env.MAX_MEETINGS_PER_WORKER), 'MiB of shm a seat').to.be.at.least(64);
    expect(spec.containers[0].volumeMounts).to.deep.include({ name: 'tmp', mountPath: '/tmp' });
    const graceS = (Number(env.WORKER_STOP_GRACE_MS) + Number(env.WORKER_DRAIN_MS)) / 1000;
    expect(spec.terminationGracePeriodSeconds).to.be.at.least(graceS + 30);
    expect(env.POD_NAME).to.deep.equal({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(env.POD_NAMESPACE).to.deep.equal({ fieldRef: { fieldPath: 'metadata.namespace' } });
    expect(env.MEETING_SESSION_ROLE).to.equal('worker');
    // Allowed to patch pods, and only that; the admission policy narrows it to the cost of its own.
    const objects = rendered.get('base')!;
    expect(named(objects, 'Role', 'meeting-worker-deletion-cost').rules).to.deep.equal([
      { apiGroups: [''], resources: ['pods'], verbs: ['patch'] },
    ]);
    const policy = named(objects, 'ValidatingAdmissionPolicy', 'notetaker-worker-deletion-cost-only');
    expect(policy.metadata).to.not.have.property('namespace');
    expect(JSON.stringify(policy.spec)).to.contain('controller.kubernetes.io/pod-deletion-cost');
  });

  it("lets a worker's account change only its own pod's deletion cost (the admission policy's CEL)", () => {
    const policy = named(rendered.get('base')!, 'ValidatingAdmissionPolicy', 'notetaker-worker-deletion-cost-only');
    const COST = 'controller.kubernetes.io/pod-deletion-cost';
    const pod = (annotations: Record<string, string> | undefined, change: Obj = {}) => ({
      metadata: { name: 'meeting-worker-1', labels: { 'app.kubernetes.io/name': 'meeting-worker' }, annotations },
      spec: { containers: [{ name: 'meeting-worker', image: 'notetaker/meeting-session:1' }] },
      ...change,
    });
    /** Admitted (true), refused (a message), or not this policy's business (null). */
    const admit = (object: Obj, oldObject: Obj, user = 'meeting-worker', podName = 'meeting-worker-1') => {
      const request = {
        namespace: 'notetaker',
        userInfo: {
          username: `system:serviceaccount:notetaker:${user}`,
          extra: { 'authentication.kubernetes.io/pod-name': [podName] },
        },
      };
      const context: Obj = { object, oldObject, request };
      if (!policy.spec.matchConditions.every((m: Obj) => cel(m.expression, context) === true)) return null;
      const variables: Obj = {};
      for (const v of policy.spec.variables) variables[v.name] = cel(v.expression, { ...context, variables });
      const refused = policy.spec.validations.find((v: Obj) => cel(v.expression, { ...context, variables }) !== true);
      return refused ? (refused.message as string) : true;
    };
    expect(admit(pod({ [COST]: '3', keep: 'x' }), pod({ [COST]: '2', keep: 'x' }))).to.equal(true);
    expect(admit(pod({ [COST]: '0' }), pod(undefined)), 'the first cost').to.equal(true);
    expect(admit(pod({ [COST]: '3' }), pod({ [COST]: '2' }), 'meeting-worker', 'meeting-worker-2')).to.match(/own pod/);
    expect(admit(pod({ [COST]: '2', extra: 'x' }), pod({ [COST]: '2' }))).to.match(/deletion cost/);
    expect(admit(pod({}), pod({ keep: 'x' })), 'another annotation removed').to.match(/deletion cost/);
    const relabelled = pod({ [COST]: '2' });
    relabelled.metadata.labels = { 'app.kubernetes.io/name': 'gateway' };
    expect(admit(relabelled, pod({ [COST]: '2' }))).to.match(/deletion cost/);
    const reimaged = pod({ [COST]: '2' }, { spec: { containers: [{ name: 'meeting-worker', image: 'evil:1' }] } });
    expect(admit(reimaged, pod({ [COST]: '2' }))).to.match(/deletion cost/);
    expect(admit(reimaged, pod({ [COST]: '2' }), 'deployer'), "another account: RBAC's business").to.equal(null);
  });

  it('shares CONTENT_ROOT between transcript-store, project-catalog and the task-scheduler', () => {
    for (const name of ['base', 'base + content-rwo']) {
      const objects = rendered.get(name)!;
      const contentRoot = ofKind(objects, 'ConfigMap')[0].data.CONTENT_ROOT;
      const pvc = named(objects, 'PersistentVolumeClaim', 'content');
      expect(pvc.spec.accessModes).to.deep.equal([name === 'base' ? 'ReadWriteMany' : 'ReadWriteOnce']);
      const mounting = ofKind(objects, 'Deployment').filter((d) =>
        (podSpec(d).volumes ?? []).some((v: Obj) => v.persistentVolumeClaim?.claimName === 'content'),
      );
      expect(mounting.map((d) => d.metadata.name).sort()).to.deep.equal([
        'project-catalog',
        'task-scheduler',
        'transcript-store',
      ]);
      for (const d of mounting) {
        const mount = podSpec(d).containers[0].volumeMounts.find((m: Obj) => m.name === 'content');
        expect(mount.mountPath).to.equal(contentRoot);
        // One node holds a ReadWriteOnce volume: the three go where it is.
        if (name !== 'base')
          expect(podSpec(d).affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution).to.have.length(1);
      }
    }
  });

  it('lets only the gateway take outside traffic; workers reach the bus and the internet; callbacks no cluster address', () => {
    const objects = rendered.get('with-dependencies')!;
    const policies = ofKind(objects, 'NetworkPolicy');
    const podsLabels = workloads(objects).map((w) => ({
      name: w.metadata.name as string,
      labels: w.spec.template.metadata.labels,
    }));
    const policiesOf = (name: string) =>
      policies.filter((p) => matchesSelector(p.spec.podSelector, podsLabels.find((x) => x.name === name)!.labels));
    expect(named(objects, 'NetworkPolicy', 'default-deny').spec).to.deep.equal({
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    });
    // An ingress rule with no `from` admits anyone: only the gateway's.
    for (const { name } of podsLabels) {
      const open = policiesOf(name).flatMap((p) => (p.spec.ingress ?? []).filter((r: Obj) => !r.from));
      expect(open.length, name).to.equal(name === 'gateway' ? 1 : 0);
    }
    const internet = (rule: Obj) =>
      (rule.to ?? []).length > 0 &&
      rule.to.every(
        (peer: Obj) =>
          peer.ipBlock &&
          (peer.ipBlock.cidr === '::/0'
            ? peer.ipBlock.except.includes('fc00::/7') && peer.ipBlock.except.includes('fe80::/10')
            : ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'].every((r) =>
                peer.ipBlock.except.includes(r),
              )),
      );
    const byPortOnly = (rule: Obj, ports: number[]) => !rule.to && rule.ports.every((p: Obj) => ports.includes(p.port));
    const dns = (rule: Obj) => rule.to?.[0]?.podSelector?.matchLabels?.['k8s-app'] === 'kube-dns';
    for (const rule of policiesOf('meeting-worker').flatMap((p) => p.spec.egress ?? [])) {
      // The bus (4222), its own pod's patch (the API server, 443/6443), DNS, the internet: no database.
      expect(dns(rule) || internet(rule) || byPortOnly(rule, [4222, 443, 6443]), JSON.stringify(rule)).to.equal(true);
    }
    for (const rule of policiesOf('webhook-emitter').flatMap((p) => p.spec.egress ?? [])) {
      expect(dns(rule) || internet(rule) || byPortOnly(rule, [4222, 27017]), JSON.stringify(rule)).to.equal(true);
    }
    expect(ofKind(objects, 'ConfigMap')[0].data.CALLBACK_ALLOW_PRIVATE).to.equal('false');
  });

  it('gives transcript-store its recordings bucket: settings from the ConfigMap, credentials from the Secret', () => {
    const objects = rendered.get('with-dependencies')!;
    const config = ofKind(objects, 'ConfigMap')[0].data as Record<string, string>;
    const envOf = (name: string): Obj[] => podSpec(named(objects, 'Deployment', name)).containers[0].env ?? [];
    // The settings an operator changes are in the ConfigMap; unset, the service keeps files.
    expect(config).to.include.keys(
      'RECORDINGS_S3_URL',
      'RECORDINGS_S3_BUCKET',
      'RECORDINGS_S3_REGION',
      'RECORDINGS_S3_FORCE_PATH_STYLE',
      'RECORDINGS_S3_PREFIX',
    );
    expect(config).to.include({ RECORDINGS_S3_URL: '', RECORDING_DEFAULT: 'none', RECORDING_RETENTION_DAYS: '' });
    // Each service parses the ConfigMap as it stands (no empty value its schema refuses).
    expect(recordingsEnv.safeParse(config).data).to.include({
      RECORDINGS_S3_URL: undefined,
      RECORDINGS_S3_REGION: 'us-east-1',
    });
    expect(meetingSessionEnv.safeParse(config).data?.RECORDING_DEFAULT).to.equal('none');
    const scheduler = schedulerEnvSchema.safeParse(config);
    expect(scheduler.success, JSON.stringify(scheduler.error?.issues)).to.equal(true);
    expect(scheduler.data!.RECORDING_RETENTION_DAYS).to.equal(undefined);
    // The credentials: from the Secret, optional (no bucket, or the SDK's own chain), to transcript-store alone.
    for (const key of ['RECORDINGS_S3_ACCESS_KEY_ID', 'RECORDINGS_S3_SECRET_ACCESS_KEY']) {
      expect(
        envOf('transcript-store').find((e) => e.name === key),
        key,
      ).to.deep.equal({
        name: key,
        valueFrom: { secretKeyRef: { name: ofKind(objects, 'Secret')[0].metadata.name, key, optional: true } },
      });
      for (const w of workloads(objects).filter((o) => o.metadata.name !== 'transcript-store')) {
        expect(
          (podSpec(w).containers[0].env ?? []).map((e: Obj) => e.name),
          w.metadata.name,
        ).to.not.include(key);
      }
    }

    // An operator's overlay, as docs/deploy/kubernetes.md shows: the bucket in the ConfigMap, its
    // keys in the Secret; what transcript-store then gets parses to an S3 bucket with credentials.
    const { dir, objects: withBucket } = composed(
      ['with-dependencies'],
      [],
      [
        'configMapGenerator:',
        '  - name: notetaker-config',
        '    behavior: merge',
        '    literals:',
        '      - RECORDINGS_S3_URL=https://s3.eu-west-1.amazonaws.com',
        '      - RECORDINGS_S3_BUCKET=acme-notetaker-recordings',
        '      - RECORDINGS_S3_REGION=eu-west-1',
        '      - RECORDINGS_S3_FORCE_PATH_STYLE=false',
        '      - RECORDING_RETENTION_DAYS=90',
        'secretGenerator:',
        '  - name: notetaker-secrets',
        '    behavior: merge',
        '    envs: [secrets.env]',
        '',
      ].join('\n'),
      {
        'secrets.env':
          'SECRETS_KEY=not-a-real-key\nRECORDINGS_S3_ACCESS_KEY_ID=AKIAEXAMPLE\nRECORDINGS_S3_SECRET_ACCESS_KEY=not-a-real-secret\n',
      },
    );
    dirs.push(dir);
    const cm = ofKind(withBucket, 'ConfigMap')[0];
    const secret = ofKind(withBucket, 'Secret')[0];
    const store = podSpec(named(withBucket, 'Deployment', 'transcript-store')).containers[0];
    expect(store.envFrom).to.deep.include({ configMapRef: { name: cm.metadata.name } });
    const env: Record<string, string> = { ...cm.data };
    for (const e of store.env as Obj[]) {
      if (e.value !== undefined) env[e.name] = e.value;
      const ref = e.valueFrom?.secretKeyRef;
      if (ref && secret.data[ref.key] !== undefined) {
        expect(ref.name).to.equal(secret.metadata.name);
        env[e.name] = Buffer.from(String(secret.data[ref.key]).replace(/\s+/g, ''), 'base64').toString('utf8');
      }
    }
    const parsed = recordingsEnv.safeParse(env);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
    expect(parsed.data).to.deep.include({
      RECORDINGS_S3_URL: 'https://s3.eu-west-1.amazonaws.com',
      RECORDINGS_S3_BUCKET: 'acme-notetaker-recordings',
      RECORDINGS_S3_REGION: 'eu-west-1',
      RECORDINGS_S3_FORCE_PATH_STYLE: false,
      RECORDINGS_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
      RECORDINGS_S3_SECRET_ACCESS_KEY: 'not-a-real-secret',
    });
    expect(schedulerEnvSchema.parse(cm.data).RECORDING_RETENTION_DAYS).to.equal(90);
  });

  it('lets transcript-store reach its bucket (443, and 9000 for an in-cluster MinIO), and no other pod by that rule', () => {
    const objects = rendered.get('with-dependencies')!;
    const policies = ofKind(objects, 'NetworkPolicy');
    const labelsOf = (name: string) => named(objects, 'Deployment', name).spec.template.metadata.labels;
    const egressPorts = (name: string) =>
      policies
        .filter((p) => matchesSelector(p.spec.podSelector, labelsOf(name)))
        .flatMap((p) => p.spec.egress ?? [])
        .filter((rule: Obj) => !rule.to)
        .flatMap((rule: Obj) => rule.ports.map((port: Obj) => `${port.protocol}/${port.port}`));
    expect(egressPorts('transcript-store')).to.include.members(['TCP/443', 'TCP/9000']);
    const bucket = named(objects, 'NetworkPolicy', 'recordings-bucket');
    expect(bucket.spec.policyTypes).to.deep.equal(['Egress']);
    for (const name of APP.filter((n) => n !== 'transcript-store')) {
      expect(matchesSelector(bucket.spec.podSelector, labelsOf(name)), name).to.equal(false);
      expect(egressPorts(name), name).to.not.include('TCP/9000');
    }
  });

  it('keeps recordings without a bucket only on a ReadWriteOnce volume of a single transcript-store', () => {
    const data = (objects: Obj[]) =>
      (podSpec(named(objects, 'Deployment', 'transcript-store')).volumes as Obj[]).find((v) => v.name === 'data');
    const base = rendered.get('base')!;
    const dataDir = ofKind(base, 'ConfigMap')[0].data.DATA_DIR;
    // The base: DATA_DIR is each pod's emptyDir (what the docs and config.env warn of), two replicas.
    expect(data(base)).to.have.property('emptyDir');
    expect(named(base, 'Deployment', 'transcript-store').spec.replicas).to.be.greaterThan(1);
    for (const name of ['base + recordings-volume', 'with-dependencies + recordings-volume']) {
      const objects = rendered.get(name)!;
      const store = named(objects, 'Deployment', 'transcript-store');
      expect(data(objects), name).to.deep.equal({ name: 'data', persistentVolumeClaim: { claimName: 'recordings' } });
      expect(podSpec(store).containers[0].volumeMounts).to.deep.include({ name: 'data', mountPath: dataDir });
      expect(named(objects, 'PersistentVolumeClaim', 'recordings').spec.accessModes).to.deep.equal(['ReadWriteOnce']);
      expect(store.spec.replicas, name).to.equal(1);
      // The old pod lets the volume go before the new one mounts it.
      expect(store.spec.strategy, name).to.deep.equal({ type: 'Recreate' });
      expect(named(objects, 'PersistentVolumeClaim', 'recordings').metadata.namespace).to.equal('notetaker');
    }
  });
});
