/**
 * /static/*: the CSS and scripts of the web application, all from this machine (no CDN): Pico and
 * htmx as installed in node_modules, and our own app.css / app.js. Read once at start-up, served
 * from memory with an ETag, under a fixed allowlist of names (no path is built from the URL).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Middleware } from 'koa';

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const require = createRequire(import.meta.url);
const ownAssets = path.join(import.meta.dirname, 'assets');

const SOURCES: Record<string, { file: string; type: string }> = {
  'pico.min.css': { file: require.resolve('@picocss/pico/css/pico.min.css'), type: 'text/css; charset=utf-8' },
  'htmx.min.js': { file: require.resolve('htmx.org/dist/htmx.min.js'), type: 'text/javascript; charset=utf-8' },
  'app.css': { file: path.join(ownAssets, 'app.css'), type: 'text/css; charset=utf-8' },
  'app.js': { file: path.join(ownAssets, 'app.js'), type: 'text/javascript; charset=utf-8' },
  'icon.svg': { file: path.join(ownAssets, 'icon.svg'), type: 'image/svg+xml' },
};

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  for (const [name, { file, type }] of Object.entries(SOURCES)) {
    const body = fs.readFileSync(file);
    const etag = `"${crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    assets.set(name, { body, type, etag });
  }
  return assets;
}

export function staticAssets(): Middleware {
  const assets = loadAssets();
  return async (ctx) => {
    const asset = assets.get(String(ctx.params.name));
    if (!asset) {
      ctx.status = 404;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'Not found';
      return;
    }
    ctx.set('ETag', asset.etag);
    // Revalidated after an hour: a new release is picked up without a hashed file name.
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (ctx.get('if-none-match') === asset.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
