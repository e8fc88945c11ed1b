/**
 * The import graph of the workspace (import-graph.ts): no package imports one it does not list, no
 * shared package imports a service, no service another (but the stack), and no cycle between
 * packages or between the modules of a package, type-only imports included.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { cyclesOf, readImportGraph } from './import-graph.js';

const root = path.resolve(import.meta.dirname, '../..');

describe('the import graph', () => {
  it('keeps its rules across the workspace', () => {
    const graph = readImportGraph(root);
    expect(graph.problems).to.deep.equal([]);
    // The graph was read at all: the stack imports every service, a service its shared packages.
    expect([...graph.packageEdges.get('@notetaker/stack')!]).to.include.members([
      '@notetaker/gateway',
      '@notetaker/meeting-session',
    ]);
    expect([...graph.packageEdges.get('@notetaker/bus')!]).to.deep.equal(['@notetaker/contracts']);
  });

  describe('on a workspace that breaks them', () => {
    let dir: string;
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    const manifest = (name: string, dependencies: string[]) =>
      JSON.stringify({ name, dependencies: Object.fromEntries(dependencies.map((d) => [d, '*'])) });

    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-graph-'));
      write('shared/low/package.json', manifest('@t/low', ['@t/high']));
      write('shared/low/src/index.ts', "import type { High } from '@t/high';\nexport type Low = High;\n");
      write('shared/high/package.json', manifest('@t/high', ['@t/low']));
      write('shared/high/src/index.ts', "import type { Low } from '@t/low';\nexport type High = Low | 1;\n");
      write('shared/up/package.json', manifest('@t/up', []));
      // In a comment and a string, not an import: '@t/one' must not count.
      write('shared/up/src/index.ts', "// import '@t/one';\nexport const s = \"import x from '@t/two'\";\n");
      write('shared/up/src/reach.ts', "export { x } from '@t/one';\n");
      write('services/one/package.json', manifest('@t/one', ['@t/two']));
      write('services/one/src/a.ts', "import type { B } from './b.js';\nexport type A = B[];\n");
      write('services/one/src/b.ts', "import type { A } from './a.js';\nexport type B = A | string;\n");
      write('services/one/src/c.ts', "export { two } from '@t/two';\nexport * from '../../two/src/index.js';\n");
      write('services/two/package.json', manifest('@t/two', []));
      write('services/two/src/index.ts', "export const two = await import('@t/low');\n");
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('names every break', () => {
      const { problems } = readImportGraph(dir);
      expect(problems).to.have.members([
        'package cycle among @t/high, @t/low',
        'module cycle in @t/one among services/one/src/a.ts, services/one/src/b.ts',
        'services/one/src/c.ts: the service @t/one imports another service, @t/two',
        "services/one/src/c.ts reaches outside its package: '../../two/src/index.js'",
        "shared/up/src/reach.ts imports @t/one, which @t/up's package.json does not list",
        'shared/up/src/reach.ts: shared package @t/up imports the service @t/one',
        "services/two/src/index.ts imports @t/low, which @t/two's package.json does not list",
      ]);
    });
  });

  it('finds a cycle of any length and a module naming itself, and none in a tree', () => {
    const graph = (pairs: Array<[string, string[]]>) => new Map(pairs);
    expect(
      cyclesOf(
        graph([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ).map((c) => c.sort()),
    ).to.deep.equal([['a', 'b', 'c']]);
    expect(cyclesOf(graph([['a', ['a']]]))).to.deep.equal([['a']]);
    expect(
      cyclesOf(
        graph([
          ['a', ['b', 'c']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).to.deep.equal([]);
  });
});
