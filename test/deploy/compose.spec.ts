import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '../..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: { target?: string; args?: Record<string, string> };
      environment?: Record<string, string>;
      ports?: string[];
      volumes?: string[];
    }
  >;
};
const dockerfile = fs.readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
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

  it('is accepted by docker compose where a compose client is installed', function () {
    const candidates: string[][] = [['docker', 'compose'], ['docker-compose']];
    const client = candidates.find(
      ([cmd, ...rest]) => spawnSync(cmd, [...rest, 'version'], { stdio: 'ignore' }).status === 0,
    );
    if (!client) {
      console.log('    (no docker compose client on this machine: the structural checks above stand alone)');
      this.skip();
    }
    const [cmd, ...rest] = client!;
    execFileSync(cmd, [...rest, '-f', 'docker-compose.yml', 'config', '-q'], {
      cwd: root,
      env: { ...process.env, SECRETS_KEY: 'test-only' },
    });
  });
});
