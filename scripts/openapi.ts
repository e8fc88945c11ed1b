/**
 * `npm run openapi`: writes docs/api/openapi.json from the gateway's own generator. Run it after
 * changing an operation, a contract schema or the document's builder, and commit the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { OPENAPI_FILE, generatedOpenApiText } from './openapi-file.js';

const text = await generatedOpenApiText();
const before = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : null;
const shown = path.relative(process.cwd(), OPENAPI_FILE);
if (before === text) {
  process.stdout.write(`${shown} is up to date\n`);
} else {
  fs.mkdirSync(path.dirname(OPENAPI_FILE), { recursive: true });
  fs.writeFileSync(OPENAPI_FILE, text);
  process.stdout.write(`${shown} written (${text.length} bytes)\n`);
}
