/**
 * Secrets a service must read again (webhook signing secrets, bot sessions, calendar credentials)
 * are sealed at rest with AES-256-GCM under a key-encryption key that never enters the database:
 * SECRETS_KEY, or a generated 0600 file under DATA_DIR.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SealedSecret {
  iv: string;
  tag: string;
  data: string;
}

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** From SECRETS_KEY (any string, stretched by SHA-256) or a key file created once under dataDir. */
  static load(options: { secretsKey?: string; dataDir: string }): SecretBox {
    if (options.secretsKey) {
      return new SecretBox(crypto.createHash('sha256').update(options.secretsKey, 'utf8').digest());
    }
    const file = path.join(options.dataDir, 'secrets.key');
    fs.mkdirSync(options.dataDir, { recursive: true });
    try {
      const created = crypto.randomBytes(32);
      fs.writeFileSync(file, created.toString('base64'), { flag: 'wx', mode: 0o600 });
      return new SecretBox(created);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return new SecretBox(key);
  }

  seal(plain: string): SealedSecret {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  }

  open(sealed: SealedSecret): string {
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
  }
}
