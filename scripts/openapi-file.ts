/**
 * The committed OpenAPI document, docs/api/openapi.json: where it lives and the exact text the code
 * generates for it. `npm run openapi` writes it; services/gateway/test/openapi/committed.spec.ts
 * fails when the file differs, so the document in the repository is always the one the gateway
 * serves at GET /api/v1/openapi.json.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';
import { openApiDocument } from '../services/gateway/src/openapi/document.js';

export const OPENAPI_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/api/openapi.json');

/** As the repository's prettier settings print it, so formatting the tree leaves the file alone. */
export async function generatedOpenApiText(): Promise<string> {
  const options = await prettier.resolveConfig(OPENAPI_FILE);
  return prettier.format(JSON.stringify(openApiDocument()), { ...options, filepath: OPENAPI_FILE });
}
