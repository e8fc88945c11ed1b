/**
 * The images run compiled JavaScript, not TypeScript through tsx: `npm run build` (tsc -b per
 * package, through lerna) must compile every package, and the compiled stack must start with
 * plain node under the `production` export condition (Node 20 cannot load a .ts file, so
 * anything still resolving to src/ would fail here) and serve. Every entry point the Dockerfile
 * runs must exist.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { expect } from 'chai';

const root = path.resolve(import.meta.dirname, '../..');

describe('the compiled build the images run', function () {
  this.timeout(180_000);

  before(() => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'pipe' });
  });

  it("has every service's entry point the Dockerfile runs", () => {
    const services = fs.readdirSync(path.join(root, 'services')).filter((name) => name !== 'stack');
    for (const name of services) {
      expect(fs.existsSync(path.join(root, 'services', name, 'dist/main.js')), name).to.equal(true);
    }
    const dockerfile = fs.readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
    expect(dockerfile).to.contain('services/${SERVICE}/dist/main.js');
    expect(dockerfile).to.not.contain('tsx');
  });

  it('starts the whole stack with plain node and serves', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-compiled-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      NODE_OPTIONS: '--conditions=production',
    };
    delete env.NATS_URL;
    delete env.MONGODB_URL;
    const app = spawn(process.execPath, [path.join(root, 'services/stack/dist/main.js')], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    app.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        readline.createInterface({ input: app.stdout! }).on('line', (line) => {
          if (line.includes('"stack started"')) resolve((JSON.parse(line) as { url: string }).url);
        });
        app.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect(await (await fetch(`${url}/readyz`)).json()).to.include({ status: 'ready' });
      expect((await fetch(`${url}/api/v1/openapi.json`)).status).to.equal(200);
      const page = await fetch(`${url}/static/app.css`);
      expect(page.status, 'the web assets are in the build').to.equal(200);
    } finally {
      app.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
