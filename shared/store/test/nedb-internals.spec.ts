/**
 * The embedded adapter uses a few nedb internals (src/nedb-internals.ts). nedb is pinned to the
 * version they were checked against; an upgrade must come through here, where this test names
 * what changed, rather than reach users as lost writes.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { NEDB_VERSION, nedbInternalsProblems } from '../src/nedb-internals.js';

describe('embedded store: the nedb internals it relies on', () => {
  it('are all there, in the pinned version', () => {
    expect(nedbInternalsProblems()).to.deep.equal([]);
    const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies['@seald-io/nedb'], 'pinned exactly, no range').to.equal(NEDB_VERSION);
  });
});
