import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as {
  services: Record<
    string,
    {
      image?: string;
      build?: { target?: string; args?: Record<string, string> };
      command?: string | string[];
      entrypoint?: string | string[];
      depends_on?: string[] | Record<string, { condition?: string }>;
      environment?: Record<string, string>;
      ports?: string[];
      volumes?: string[];
      restart?: string;
      profiles?: string[];
    }
  >;
  volumes?: Record<string, unknown>;
};
const dockerfile = fs.readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
/** Variables that hold a secret: a password, a key (not a key's id), a token. */
const SECRET_NAME = /(PASSWORD|SECRET|TOKEN|_KEY)$/;
/** What `docker compose config` needs set, and nothing else (each is a `:?` in the file). */
const REQUIRED_SECRETS = {
  SECRETS_KEY: 'test-only',
  MINIO_ROOT_PASSWORD: 'test-only-password',
  RECORDINGS_S3_SECRET_ACCESS_KEY: 'test-only-secret',
};
/** An image tag MinIO publishes for one release (never `latest`, which moves). */
const MINIO_RELEASE = /^minio\/(minio|mc):RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$/;

/** A compose client on this machine: `docker compose` (v2) or `docker-compose` (v1), or none. */
function composeClient(): string[] | undefined {
  const candidates: string[][] = [['docker', 'compose'], ['docker-compose']];
  return candidates.find(([cmd, ...rest]) => spawnSync(cmd, [...rest, 'version'], { stdio: 'ignore' }).status === 0);
}
/** The environment of the test run, less every variable the compose file reads (a developer's own). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const [, name] of composeText.matchAll(/\$\{([A-Z0-9_]+)/g)) delete env[name];
  return env;
}

const serviceDirs = fs
  .readdirSync(path.join(root, 'services'))
  .filter((name) => name !== 'stack' && fs.existsSync(path.join(root, 'services', name, 'src/main.ts')));

describe('docker-compose.yml', () => {
  it('runs every service in its own container against NATS and MongoDB', () => {
    expect(compose.services).to.include.keys('nats', 'mongodb');
    for (const name of serviceDirs) {
      const service = compose.services[name];
      expect(service, name).to.exist;
      expect(service.environment).to.include({ NATS_URL: 'nats://nats:4222', MONGODB_URL: 'mongodb://mongodb:27017' });
      expect(service.volumes, name).to.include('content:/content');
      const target = service.build?.target;
      expect(dockerfile, name).to.contain(`AS ${target}`);
      if (target === 'service') expect(service.build?.args?.SERVICE).to.equal(name);
    }
  });

  it('keeps the production condition wherever a service sets its own NODE_OPTIONS', () => {
    // The image's NODE_OPTIONS selects each package's compiled dist/; a service that replaces it
    // without the condition would load TypeScript sources that are not in the image.
    const image = /ENV .*NODE_OPTIONS=(\S+)/.exec(dockerfile)?.[1];
    expect(image).to.equal('--conditions=production');
    for (const [name, service] of Object.entries(compose.services)) {
      const options = service.environment?.NODE_OPTIONS;
      if (options !== undefined) expect(options.split(/\s+/), name).to.include(image);
    }
  });

  it('publishes only the gateway and enables JetStream', () => {
    const published = Object.entries(compose.services)
      .filter(([, s]) => s.ports?.length)
      .map(([n]) => n);
    expect(published).to.deep.equal(['gateway']);
    expect(JSON.stringify(compose.services.nats)).to.contain('-js');
  });

  it('keeps recordings in a MinIO of its own, pinned to a release, with a volume and no published port', () => {
    const minio = compose.services.minio;
    expect(minio.image).to.match(MINIO_RELEASE);
    expect(minio.image).to.match(/^minio\/minio:/);
    expect(minio.command).to.deep.equal(['server', '/data', '--console-address', ':9001']);
    expect(minio.volumes).to.deep.equal(['minio:/data']);
    expect(compose.volumes).to.have.property('minio');
    expect(minio.ports, 'not published: the gateway streams downloads').to.equal(undefined);
    // MinIO drops a lifecycle rule's AbortIncompleteMultipartUpload; its own sweep does it, after a day.
    expect(minio.environment).to.include({
      MINIO_API_STALE_UPLOADS_EXPIRY: '24h',
      MINIO_API_STALE_UPLOADS_CLEANUP_INTERVAL: '6h',
    });
    expect(minio.environment!.MINIO_ROOT_USER).to.match(/^\$\{MINIO_ROOT_USER:-[a-z-]+\}$/);
    expect(minio.environment!.MINIO_ROOT_PASSWORD).to.match(/^\$\{MINIO_ROOT_PASSWORD:\?.+\}$/);
  });

  it('creates the private bucket and a user for it alone in a one-shot step transcript-store waits for', () => {
    const step = compose.services.createbuckets;
    expect(step.image).to.match(MINIO_RELEASE);
    expect(step.image).to.match(/^minio\/mc:/);
    expect(step.depends_on).to.deep.equal(['minio']);
    expect(step.restart ?? 'no', 'a one-shot step is not restarted').to.equal('no');
    expect(step.entrypoint).to.deep.equal(['/bin/sh', '-euc']);
    const script = ([] as string[]).concat(step.command ?? []).join('\n');
    expect(script).to.contain('mc mb --ignore-existing local/recordings');
    expect(script).to.contain('mc anonymous set none local/recordings');
    // The policy is the one docs/deploy/recordings.md gives: these actions, on this bucket only.
    const policy = JSON.parse(/printf '%s' '(\{.*\})' >/.exec(script)![1]) as {
      Statement: Array<{ Effect: string; Action: string[]; Resource: string[] }>;
    };
    const granted = policy.Statement.flatMap((s) => s.Action.map((a) => `${a} ${s.Resource.join(',')}`)).sort();
    expect(granted).to.deep.equal(
      [
        's3:AbortMultipartUpload arn:aws:s3:::recordings/*',
        's3:DeleteObject arn:aws:s3:::recordings/*',
        's3:GetObject arn:aws:s3:::recordings/*',
        's3:ListBucket arn:aws:s3:::recordings',
        's3:ListBucketMultipartUploads arn:aws:s3:::recordings',
        's3:ListMultipartUploadParts arn:aws:s3:::recordings/*',
        's3:PutObject arn:aws:s3:::recordings/*',
      ].sort(),
    );
    expect(policy.Statement.every((s) => s.Effect === 'Allow')).to.equal(true);
    const docs = fs.readFileSync(path.join(root, 'docs/deploy/recordings.md'), 'utf8');
    for (const action of new Set(policy.Statement.flatMap((s) => s.Action))) expect(docs).to.contain(`"${action}"`);
    expect(script).to.contain(
      'mc admin user add local "$$RECORDINGS_S3_ACCESS_KEY_ID" "$$RECORDINGS_S3_SECRET_ACCESS_KEY"',
    );
    expect(script).to.contain(
      'mc admin policy attach local notetaker-recordings --user "$$RECORDINGS_S3_ACCESS_KEY_ID"',
    );
    // Shell variables, not compose's: the secrets stay out of the container's command line.
    expect(script).to.not.match(/(^|[^$])\$\{?[A-Z]/);
    expect(compose.services['transcript-store'].depends_on).to.deep.include({
      createbuckets: { condition: 'service_completed_successfully' },
    });
  });

  it('wires transcript-store to the bucket, and the recording settings of meeting-session and the task-scheduler', () => {
    const store = compose.services['transcript-store'];
    expect(store.environment).to.include({
      RECORDINGS_S3_URL: 'http://minio:9000',
      RECORDINGS_S3_BUCKET: 'recordings',
      RECORDINGS_S3_REGION: 'us-east-1',
      RECORDINGS_S3_FORCE_PATH_STYLE: 'true',
    });
    // The same user the bucket step creates.
    for (const name of ['RECORDINGS_S3_ACCESS_KEY_ID', 'RECORDINGS_S3_SECRET_ACCESS_KEY']) {
      expect(store.environment![name], name).to.equal(compose.services.createbuckets.environment![name]);
    }
    expect(store.depends_on).to.include.keys('nats', 'mongodb');
    expect(compose.services['meeting-session'].environment).to.include({
      RECORDING_DEFAULT: '${RECORDING_DEFAULT:-none}',
    });
    expect(compose.services['task-scheduler'].environment).to.include({
      RECORDING_RETENTION_DAYS: '${RECORDING_RETENTION_DAYS:-}',
    });
    // Only transcript-store and the bucket step hold the bucket's credentials; only MinIO and the step the root's.
    for (const [name, service] of Object.entries(compose.services)) {
      const env = Object.keys(service.environment ?? {});
      if (env.includes('RECORDINGS_S3_SECRET_ACCESS_KEY'))
        expect(['transcript-store', 'createbuckets']).to.include(name);
      if (env.includes('MINIO_ROOT_PASSWORD')) expect(['minio', 'createbuckets']).to.include(name);
    }
  });

  it('takes every secret from the environment, with no default value', () => {
    // In the file: a secret variable's `${NAME:-default}` may only default to empty.
    for (const [, name, op, fallback] of composeText.matchAll(/\$\{([A-Z0-9_]+)(:?[-?])?([^}]*)\}/g)) {
      if (!SECRET_NAME.test(name) || op === undefined) continue;
      if (op.endsWith('-')) expect(fallback, `${name} has a default`).to.equal('');
    }
    for (const name of Object.keys(REQUIRED_SECRETS)) {
      expect(composeText, `${name} is required`).to.match(new RegExp(`\\$\\{${name}:\\?`));
    }
    // In every service: a secret-named variable's value is the environment's, never a literal.
    for (const [service, { environment }] of Object.entries(compose.services)) {
      for (const [name, value] of Object.entries(environment ?? {})) {
        if (SECRET_NAME.test(name))
          expect(value, `${service} ${name}`).to.match(new RegExp(`^\\$\\{${name}(:[-?].*)?\\}$`));
      }
    }
  });

  it('is accepted by docker compose where a compose client is installed', function () {
    // docker-compose v1 is a Python program: 5-20 s a run on a loaded machine.
    this.timeout(120_000);
    const client = composeClient();
    if (!client) {
      console.log('    (no docker compose client on this machine: the structural checks above stand alone)');
      this.skip();
    }
    const [cmd, ...rest] = client!;
    execFileSync(cmd, [...rest, '-f', 'docker-compose.yml', 'config', '-q'], {
      cwd: root,
      env: { ...cleanEnv(), ...REQUIRED_SECRETS },
    });
  });

  it('refuses to start without each secret, naming it', function () {
    this.timeout(120_000);
    const client = composeClient();
    if (!client) this.skip();
    const [cmd, ...rest] = client!;
    for (const missing of Object.keys(REQUIRED_SECRETS)) {
      const env: NodeJS.ProcessEnv = { ...cleanEnv(), ...REQUIRED_SECRETS };
      delete env[missing];
      const run = spawnSync(cmd, [...rest, '-f', 'docker-compose.yml', 'config', '-q'], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
      expect(run.status, `without ${missing}`).to.not.equal(0);
      expect(run.stderr, `without ${missing}`).to.contain(missing);
    }
  });

  it('renders the bucket step as a dependency transcript-store waits to complete', function () {
    this.timeout(120_000);
    const client = composeClient();
    if (!client) this.skip();
    const [cmd, ...rest] = client!;
    const rendered = parse(
      execFileSync(cmd, [...rest, '-f', 'docker-compose.yml', 'config'], {
        cwd: root,
        env: { ...cleanEnv(), ...REQUIRED_SECRETS },
        encoding: 'utf8',
      }),
    ) as typeof compose;
    const store = rendered.services['transcript-store'];
    expect(store.depends_on).to.deep.include({ createbuckets: { condition: 'service_completed_successfully' } });
    expect(store.environment).to.include({
      RECORDINGS_S3_ACCESS_KEY_ID: 'notetaker-recordings',
      RECORDINGS_S3_SECRET_ACCESS_KEY: REQUIRED_SECRETS.RECORDINGS_S3_SECRET_ACCESS_KEY,
    });
    expect(rendered.services['task-scheduler'].environment!.RECORDING_RETENTION_DAYS ?? '').to.equal('');
    expect(rendered.services['meeting-session'].environment).to.include({ RECORDING_DEFAULT: 'none' });
  });

  it('adds a self-hosted speech server with --profile speech only, wired to meeting-session', () => {
    const speech = compose.services.speech;
    expect(speech.profiles).to.deep.equal(['speech']);
    expect(speech.image, 'an existing image, CPU build, pinned').to.match(
      /^ghcr\.io\/speaches-ai\/speaches:\d+\.\d+\.\d+-cpu$/,
    );
    expect(speech.ports, 'not published').to.equal(undefined);
    expect(compose.services['speech-model'].profiles).to.deep.equal(['speech']);
    expect(compose.services['meeting-session'].environment!.STT_BASE_URL).to.equal(
      '${STT_BASE_URL:-http://speech:8000/v1}',
    );
    // Only the speech profile's services have a profile: everything else runs without it.
    const profiled = Object.entries(compose.services).filter(([, s]) => s.profiles);
    expect(profiled.map(([name]) => name)).to.deep.equal(['speech', 'speech-model']);
  });
});
