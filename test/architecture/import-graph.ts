/**
 * The workspace's import graph, read from the production code (each package's src/, type-only
 * imports included: a cycle of types is still a cycle for the reader), and the rules it keeps:
 *
 * - a package imports only the workspace packages its package.json lists under `dependencies`
 *   (the build order and the images follow that list);
 * - a shared package imports no service, and a service no other service, except services/stack,
 *   which assembles them all;
 * - no cycle between packages, and none between the modules of one package;
 * - no relative import leaves its package (another package is reached by its name).
 *
 * Specifiers come from TypeScript's own pre-processor, so imports inside comments and strings (the
 * page scripts) are not mistaken for real ones.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface WorkspacePackage {
  name: string;
  /** `shared` or `services`. */
  group: string;
  dir: string;
  dependencies: string[];
}

export interface ImportGraph {
  packages: Map<string, WorkspacePackage>;
  /** Package name -> the workspace packages its src/ imports. */
  packageEdges: Map<string, Set<string>>;
  problems: string[];
}

/** Services that may import other services: the one-process stack runs them all. */
const ASSEMBLERS = new Set(['services/stack']);
const GROUPS = ['shared', 'services'];

export function readImportGraph(root: string): ImportGraph {
  const packages = readPackages(root);
  const byName = new Map([...packages.values()].map((p) => [p.name, p]));
  const packageEdges = new Map<string, Set<string>>();
  const problems: string[] = [];

  for (const pkg of packages.values()) {
    const edges = new Set<string>();
    packageEdges.set(pkg.name, edges);
    const srcDir = path.join(pkg.dir, 'src');
    const moduleEdges = new Map<string, string[]>();
    for (const file of sourceFiles(srcDir)) {
      const where = path.relative(root, file);
      const local: string[] = [];
      moduleEdges.set(file, local);
      for (const specifier of specifiersOf(file)) {
        if (specifier.startsWith('.')) {
          const target = resolveRelative(file, specifier);
          if (!isInside(pkg.dir, target)) problems.push(`${where} reaches outside its package: '${specifier}'`);
          else if (target.endsWith('.ts') && fs.existsSync(target)) local.push(target);
          continue;
        }
        const imported = byName.get(packageNameOf(specifier));
        if (!imported || imported.name === pkg.name) continue;
        edges.add(imported.name);
        if (!pkg.dependencies.includes(imported.name)) {
          problems.push(`${where} imports ${imported.name}, which ${pkg.name}'s package.json does not list`);
        }
        const key = `${pkg.group}/${path.basename(pkg.dir)}`;
        if (pkg.group === 'shared' && imported.group === 'services') {
          problems.push(`${where}: shared package ${pkg.name} imports the service ${imported.name}`);
        } else if (pkg.group === 'services' && imported.group === 'services' && !ASSEMBLERS.has(key)) {
          problems.push(`${where}: the service ${pkg.name} imports another service, ${imported.name}`);
        }
      }
    }
    for (const cycle of cyclesOf(moduleEdges)) {
      problems.push(
        `module cycle in ${pkg.name} among ${cycle
          .map((f) => path.relative(root, f))
          .sort()
          .join(', ')}`,
      );
    }
  }
  for (const cycle of cyclesOf(packageEdges)) problems.push(`package cycle among ${cycle.sort().join(', ')}`);
  return { packages: byName, packageEdges, problems };
}

function readPackages(root: string): Map<string, WorkspacePackage> {
  const packages = new Map<string, WorkspacePackage>();
  for (const group of GROUPS) {
    const groupDir = path.join(root, group);
    if (!fs.existsSync(groupDir)) continue;
    for (const entry of fs.readdirSync(groupDir, { withFileTypes: true })) {
      const dir = path.join(groupDir, entry.name);
      const manifest = path.join(dir, 'package.json');
      if (!entry.isDirectory() || !fs.existsSync(manifest)) continue;
      const json = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
      };
      packages.set(dir, { name: json.name, group, dir, dependencies: Object.keys(json.dependencies ?? {}) });
    }
  }
  return packages;
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true, recursive: true }).flatMap((entry) => {
    const file = path.join(entry.parentPath, entry.name);
    return entry.isFile() && /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** Every module the file names: imports and re-exports (type-only too), and dynamic import(). */
function specifiersOf(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** A relative specifier as the file it loads: `./x.js` is `./x.ts` in the sources; a folder, its index.ts. */
function resolveRelative(from: string, specifier: string): string {
  const target = path.resolve(path.dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, path.join(target, 'index.ts')];
  return candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile()) ?? target;
}

function isInside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
}

/**
 * The nodes of each cycle: every strongly connected component of more than one node, or of one
 * node that names itself (Tarjan's algorithm).
 */
export function cyclesOf<N>(edges: Map<N, Iterable<N>>): N[][] {
  const index = new Map<N, number>();
  const low = new Map<N, number>();
  const stack: N[] = [];
  const onStack = new Set<N>();
  const cycles: N[][] = [];
  let next = 0;
  const visit = (node: N): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!edges.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: N[] = [];
    let member: N;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const selfLoop = [...(edges.get(node) ?? [])].includes(node);
    if (component.length > 1 || selfLoop) cycles.push(component);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}
