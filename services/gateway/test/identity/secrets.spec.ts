import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import * as secrets from '../../src/identity/secrets.js';

describe('identity secrets', () => {
  it('makes API keys with the sk_ prefix and 256 random bits, and signing secrets with ss_', () => {
    const key = secrets.generateApiKey();
    expect(key).to.match(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(3), 'base64url')).to.have.length(32);
    expect(secrets.isWellFormedApiKey(key)).to.equal(true);
    expect(secrets.generateSigningSecret()).to.match(/^ss_[A-Za-z0-9_-]{43}$/);
    expect(new Set(Array.from({ length: 100 }, secrets.generateApiKey)).size).to.equal(100);
  });

  it('rejects keys of the wrong shape before any lookup', () => {
    for (const bad of [
      '',
      'sk_',
      'ss_' + 'a'.repeat(43),
      'sk_' + 'a'.repeat(42),
      'sk_' + 'a'.repeat(44),
      `sk_${'a'.repeat(42)}!`,
    ]) {
      expect(secrets.isWellFormedApiKey(bad), bad).to.equal(false);
    }
  });

  it('compares digests in constant time and only equal ones match', () => {
    const a = secrets.hashApiKey('sk_one');
    expect(secrets.digestsEqual(a, secrets.hashApiKey('sk_one'))).to.equal(true);
    expect(secrets.digestsEqual(a, secrets.hashApiKey('sk_two'))).to.equal(false);
    expect(secrets.digestsEqual(a, '')).to.equal(false);
  });

  describe('SecretBox', () => {
    let dir: string;
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'box-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('round-trips a secret and never stores it in the clear', () => {
      const box = secrets.SecretBox.load({ dataDir: dir });
      const sealed = box.seal('ss_secret-value');
      expect(JSON.stringify(sealed)).not.to.contain('secret-value');
      expect(box.open(sealed)).to.equal('ss_secret-value');
    });

    it('creates its key file once with mode 0600 and reuses it', () => {
      const first = secrets.SecretBox.load({ dataDir: dir });
      const file = path.join(dir, 'secrets.key');
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
      const second = secrets.SecretBox.load({ dataDir: dir });
      expect(second.open(first.seal('x'))).to.equal('x');
    });

    it('cannot open what another key sealed', () => {
      const sealed = secrets.SecretBox.load({ dataDir: dir, secretsKey: 'one' }).seal('x');
      expect(() => secrets.SecretBox.load({ dataDir: dir, secretsKey: 'two' }).open(sealed)).to.throw();
    });
  });
});
