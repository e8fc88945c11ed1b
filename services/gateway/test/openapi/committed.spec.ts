/**
 * docs/api/openapi.json is the contract a reader of the repository gets without running anything:
 * it must be exactly what the gateway generates now, and docs/api/reference.md's table of MCP
 * tools must name the routes that document describes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { OPENAPI_FILE, generatedOpenApiText } from '../../../../scripts/openapi-file.js';

const REGENERATE = 'docs/api/openapi.json is not what the code generates: run `npm run openapi` and commit the file';
const REFERENCE_FILE = path.join(path.dirname(OPENAPI_FILE), 'reference.md');

/** The first line where two texts differ, both sides shown, or null when they are equal. */
function firstDifference(committed: string, generated: string): string | null {
  if (committed === generated) return null;
  const a = committed.split('\n');
  const b = generated.split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  const shown = (text: string | undefined) => (text === undefined ? '(end of file)' : text.trim().slice(0, 200));
  return `line ${line + 1}\n  committed: ${shown(a[line])}\n  generated: ${shown(b[line])}`;
}

type Paths = Record<string, Record<string, unknown>>;

describe('the committed OpenAPI document (docs/api/openapi.json)', () => {
  it('is exactly what the code generates', async () => {
    expect(fs.existsSync(OPENAPI_FILE), REGENERATE).to.equal(true);
    const difference = firstDifference(fs.readFileSync(OPENAPI_FILE, 'utf8'), await generatedOpenApiText());
    if (difference !== null) expect.fail(`${REGENERATE}. First difference at ${difference}`);
  });

  it("is what the reference's MCP tool table points at: every JSON operation, no other", () => {
    const paths = (JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Paths }).paths;
    // Beside the tools: the document itself, and the recording download (bytes, which a tool cannot answer).
    const beside = new Set(['GET /api/v1/openapi.json', 'GET /api/v1/meetings/{meetingId}/recording']);
    const documented = Object.entries(paths)
      .flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`))
      .filter((route) => !beside.has(route));
    const reference = fs.readFileSync(REFERENCE_FILE, 'utf8');
    // Rows of the table: | `tool_name` | `METHOD /api/v1/...` | ...
    const tabled = [...reference.matchAll(/^\| `([a-z_]+)` +\| `([A-Z]+ \/api\/v1\/[^`]+)`/gm)].map(
      ([, , route]) => route,
    );
    expect(tabled.length, 'the reference lists the tools in a table').to.be.greaterThan(0);
    expect([...tabled].sort(), "docs/api/reference.md's MCP table lists every documented JSON operation").to.deep.equal(
      [...documented].sort(),
    );
  });
});
