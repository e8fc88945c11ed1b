import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { call } from '@notetaker/bus';
import { routes } from '@notetaker/contracts';
import { stackPerSuite } from './support/stack-per-suite.js';

describe('gateway REST edge', () => {
  const t = stackPerSuite();

  it('serves /healthz and /readyz without a key', async () => {
    expect((await fetch(`${t.baseUrl}/healthz`)).status).to.equal(200);
    const ready = await fetch(`${t.baseUrl}/readyz`);
    expect(ready.status).to.equal(200);
    // Beside the status, whether the bots have a browser (a field: it never fails readiness).
    expect(await ready.json())
      .to.include({ status: 'ready' })
      .and.to.have.nested.property('bots.available');
  });

  it('serves Prometheus metrics', async () => {
    const res = await fetch(`${t.baseUrl}/metrics`);
    expect(res.status).to.equal(200);
    expect(await res.text()).to.contain('process_cpu_user_seconds_total');
  });

  it('accepts the key in X-API-Key and in Authorization: Bearer', async () => {
    expect((await t.api('/projects', { apiKey: t.apiKey })).status).to.equal(200);
    const bearer = await t.api('/projects', { headers: { Authorization: `Bearer ${t.apiKey}` } });
    expect(bearer.status).to.equal(200);
    expect(await bearer.json())
      .to.have.property('projects')
      .that.is.an('array');
  });

  for (const [label, headers] of [
    ['no key', {}],
    ['an unknown key', { 'X-API-Key': `sk_${'A'.repeat(43)}` }],
    ['a malformed key', { 'X-API-Key': 'not-a-key' }],
    ['a signing secret instead of the key', { 'X-API-Key': `ss_${'A'.repeat(43)}` }],
    ['a non-Bearer Authorization', { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
  ] as const) {
    it(`answers 401 Invalid API key for ${label}`, async () => {
      const res = await t.api('/projects', { headers });
      expect(res.status).to.equal(401);
      expect(await res.json()).to.deep.equal({ error: 'Invalid API key' });
    });
  }

  it('refuses a revoked key from the next request on', async () => {
    const other = await t.createToken([]);
    expect((await t.api('/projects', { apiKey: other.apiKey })).status).to.equal(200);
    await t.revokeToken(other.id);
    const res = await t.api('/projects', { apiKey: other.apiKey });
    expect(res.status).to.equal(401);
    expect(await res.json()).to.deep.equal({ error: 'Invalid API key' });
  });

  it('lists project folders put under the content root by hand', async () => {
    fs.mkdirSync(path.join(t.contentRoot, 'deployed-md-files/docs/handmade/meetings'), { recursive: true });
    fs.writeFileSync(path.join(t.contentRoot, 'deployed-md-files/docs/handmade/meetings/a.md'), '---\ntitle: a\n---\n');
    const res = await t.api('/projects', { apiKey: t.apiKey });
    const body = (await res.json()) as { projects: Array<{ id: string; hasMeetings: boolean }> };
    expect(body.projects.find((p) => p.id === 'handmade')).to.include({ hasMeetings: true });
  });

  it('answers 404 {error: "Not found"} for an unknown route', async () => {
    const res = await fetch(`${t.baseUrl}/nowhere`);
    expect(res.status).to.equal(404);
    expect(await res.json()).to.deep.equal({ error: 'Not found' });
  });

  it('answers 400 for malformed JSON and 413 for a body over 1 MB', async () => {
    const bad = await t.api('/projects', {
      method: 'POST',
      apiKey: t.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: '{"a":',
    });
    expect(bad.status).to.equal(400);
    expect(await bad.json()).to.deep.equal({ error: 'Malformed JSON body' });
    const big = await t.api('/projects', {
      method: 'POST',
      apiKey: t.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.status).to.equal(413);
    expect(await big.json()).to.have.property('error');
  });

  it('stores no API key or signing secret in the clear', async () => {
    const created = await t.createToken();
    const files = fs.readdirSync(path.join(t.dataDir, 'gateway')).map((f) => path.join(t.dataDir, 'gateway', f));
    const onDisk = files
      .filter((f) => fs.statSync(f).isFile())
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('\n');
    expect(onDisk).to.contain(created.id);
    expect(onDisk).not.to.contain(created.apiKey);
    expect(onDisk).not.to.contain(created.signingSecret);
    expect(onDisk).not.to.contain(created.apiKey.slice(3));
  });

  it("hands a token's signing secret to other services over the bus by token id", async () => {
    const created = await t.createToken();
    // Raw, not call(): the reply must hold nothing beyond the secret (call would strip extra keys).
    const reply = await t.stack.bus.request(routes.identity.signingSecret.subject, { tokenId: created.id });
    expect(reply).to.deep.equal({ signingSecret: created.signingSecret });
    expect(await call(t.stack.bus, routes.identity.signingSecret, { tokenId: 'tok_unknown' })).to.deep.equal({
      signingSecret: null,
    });
  });
});
