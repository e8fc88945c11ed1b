/**
 * `npm run demo` as a newcomer runs it (issue 32), in a process of its own with a temporary
 * DATA_DIR and PORT=0 so it collides with nothing: within two minutes it exits 0, having printed
 * the live page, the saved document and the callbacks it got, all signed; the document holds
 * exactly what the two scripted people said, in order, by whom they said it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { GUEST, HOST, LINES } from '../../scripts/demo/conversation.js';
import { chromiumMissing } from './support/world.js';

const LIMIT_MS = 120_000;

function runDemo(env: Record<string, string>): Promise<{ code: number | null; out: string; ms: number }> {
  const began = performance.now();
  const child = spawn('npm', ['run', '--silent', 'demo'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own: a demo past the limit is killed with its browser.
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const limit = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), LIMIT_MS - 2_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(limit);
      resolve({ code, out, ms: performance.now() - began });
    }),
  );
}

describe('npm run demo: a bot in a simulated meeting, end to end', function () {
  this.timeout(LIMIT_MS);
  let dataDir: string;

  before(function () {
    if (chromiumMissing()) this.skip();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'notetaker-demo-test-'));
  });
  after(() => dataDir && fs.rmSync(dataDir, { recursive: true, force: true }));

  it('prints the live page, saves the document in project demo as scripted, and gets every callback signed', async () => {
    const { code, out, ms } = await runDemo({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });
    expect(code, out).to.equal(0);
    expect(ms).to.be.below(LIMIT_MS);
    expect(out).to.match(/^Watch the live transcript: http:\/\/127\.0\.0\.1:\d+\/$/m);

    const documentPath = /^Document: (.+)$/m.exec(out)?.[1];
    expect(documentPath, out).to.be.a('string');
    expect(path.dirname(documentPath!)).to.equal(path.join(dataDir, 'deployed-md-files/docs/demo/meetings'));
    const [, frontMatter, body] = fs.readFileSync(documentPath!, 'utf8').split(/^---$/m);
    expect(parseYaml(frontMatter)).to.deep.include({
      title: 'Launch check-in',
      status: 'completed',
      project: 'demo',
      platform: 'google_meet',
      participants: [HOST, GUEST],
    });
    const said = body
      .split('\n\n')
      .map((paragraph) => /^\*\*(.+)\*\* \(\d\d:\d\d:\d\d\): (.+)$/.exec(paragraph.trim()))
      .filter((match) => match !== null)
      .map(([, speaker, text]) => ({ speaker, text }));
    expect(said).to.deep.equal(LINES);

    // Counts by type, every signature checked: the statuses of a whole meeting, both people in, one out.
    expect(out).to.match(/^Callbacks received: (\d+) events; signatures checked: \1 valid, 0 invalid$/m);
    const counts = Object.fromEntries(
      [.../^ {2}(meeting_status .+)$/m.exec(out)![1].matchAll(/(\w+) (\d+)/g)].map(([, type, n]) => [type, Number(n)]),
    );
    expect(counts).to.include({
      meeting_status: 5,
      participant_joined: 2,
      participant_left: 1,
      segment_finalized: LINES.length,
    });
    expect(counts.document_saved).to.be.at.least(1);
  });
});
