/**
 * Import graph of main/: no module reaches itself through its imports, type imports
 * included (STYLE.md 5b, arrows point down), and neither main/ nor preload/ imports the UI
 * (renderer/): what both sides share lives in main/contract/. Imports are read with a regex,
 * which is enough for our own relative specifiers; a failure names the modules.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const MAIN = join(ROOT, 'main');
const PRELOAD = join(ROOT, 'preload');
const RENDERER = join(ROOT, 'renderer');

// `import … from 'x'`, `import type … from 'x'`, `export … from 'x'`, `import 'x'`, `import('x')`.
const SPECIFIER =
  /(?:^|[;\s])(?:import|export)\s(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** Every module's local imports (type-only ones too), keyed by absolute path. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIER)) {
      const target = resolveImport(file, match[1] ?? match[2] ?? '');
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * One circle per strongly connected group of modules (Tarjan), each as a path back to its
 * start, followed by the group's other members when the circle does not pass through them all.
 */
function findCycles(graph: Map<string, string[]>): { circle: string[]; others: string[] }[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node)!, index.get(target)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (graph.get(node) ?? []).includes(node)) groups.push(group);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.map((group) => {
    const circle = circleThrough(graph, new Set(group));
    return { circle, others: group.filter((m) => !circle.includes(m)).sort() };
  });
}

/** A shortest path from the group's first module back to itself, staying inside the group. */
function circleThrough(graph: Map<string, string[]>, group: Set<string>): string[] {
  const start = [...group].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!group.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** `from → to` for every import of a module outside `ui` that lands inside it. */
function importsInto(graph: Map<string, string[]>, ui: string): string[] {
  const inside = (file: string): boolean => !relative(ui, file).startsWith('..');
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (inside(file)) continue;
    for (const target of targets) if (inside(target)) found.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
  }
  return found.sort();
}

/**
 * The folders of main/core as one graph: an edge wherever a module of one imports a module of
 * another (modules at main/core's top level, like create-core.ts, are the wiring and left out).
 */
function folderGraph(graph: Map<string, string[]>, core: string): Map<string, string[]> {
  const folderOf = (file: string): string | undefined => {
    const rel = relative(core, file);
    if (rel.startsWith('..')) return undefined;
    const parts = rel.split(/[\\/]/);
    return parts.length > 1 ? parts[0] : undefined;
  };
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const edges = folders.get(from) ?? new Set<string>();
    for (const target of targets) {
      const to = folderOf(target);
      if (to !== undefined && to !== from) edges.add(to);
    }
    folders.set(from, edges);
  }
  return new Map([...folders].map(([folder, edges]) => [folder, [...edges].sort()]));
}

void describe('import graph of main/', () => {
  void test('the folders of main/core import each other in one direction only (no circle between folders)', () => {
    const core = join(MAIN, 'core');
    const folders = folderGraph(importGraph(sourceFiles(core)), core);
    assert.ok(folders.size > 10, `expected the folders of main/core, read ${folders.size}`);
    const cycles = findCycles(folders).map(
      ({ circle, others }) => circle.join(' → ') + (others.length ? ` (with ${others.join(', ')})` : ''),
    );
    assert.deepEqual(
      cycles,
      [],
      `folder circles (move the shared piece down, or let the consumer own the interface):\n${cycles.join('\n')}`,
    );
  });

  void test('the folder check sees a circle between two folders', () => {
    const core = '/r/main/core';
    const graph = new Map([
      [`${core}/tools/a.ts`, [`${core}/safety/b.ts`]],
      [`${core}/safety/b.ts`, [`${core}/tools/c.ts`]],
      [`${core}/create-core.ts`, [`${core}/tools/a.ts`]],
    ]);
    assert.deepEqual(
      findCycles(folderGraph(graph, core)).map((c) => c.circle),
      [['safety', 'tools', 'safety']],
    );
  });

  void test('has no import circle (type imports included)', () => {
    const graph = importGraph(sourceFiles(MAIN));
    assert.ok(graph.size > 50, `expected to read the modules under main/, read ${graph.size}`);
    const name = (file: string): string => relative(ROOT, file);
    const cycles = findCycles(graph).map(
      ({ circle, others }) =>
        circle.map(name).join(' → ') + (others.length ? ` (in the same tangle: ${others.map(name).join(', ')})` : ''),
    );
    assert.deepEqual(cycles, [], `import circles:\n${cycles.join('\n')}`);
  });

  void test('main/ and preload/ never import renderer/ (type imports included)', () => {
    const graph = importGraph([...sourceFiles(MAIN), ...sourceFiles(PRELOAD)]);
    assert.ok(graph.has(join(PRELOAD, 'index.ts')), 'expected to read preload/index.ts');
    const found = importsInto(graph, RENDERER);
    assert.deepEqual(
      found,
      [],
      `imports of the UI from main/ or preload/ (move the shared part to main/contract/):\n${found.join('\n')}`,
    );
  });

  void test('the check sees an import of renderer/', () => {
    const ui = join(ROOT, 'renderer');
    const graph = new Map([
      [join(ROOT, 'main/electron/a.ts'), [join(ROOT, 'renderer/src/api/x.ts')]],
      [join(ROOT, 'preload/index.ts'), [join(ROOT, 'main/contract/y.ts')]],
      [join(ROOT, 'renderer/src/api/x.ts'), [join(ROOT, 'main/contract/y.ts')]],
    ]);
    assert.deepEqual(importsInto(graph, ui), ['main/electron/a.ts → renderer/src/api/x.ts']);
  });

  void test('the check sees a circle made of type imports', () => {
    const a = '/x/a.ts';
    const b = '/x/b.ts';
    const c = '/x/c.ts';
    assert.deepEqual(
      findCycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
      [{ circle: [a, b, c, a], others: [] }],
    );
    assert.deepEqual(
      findCycles(
        new Map([
          [a, [b, c]],
          [b, [a]],
          [c, [a]],
        ]),
      ),
      [{ circle: [a, b, a], others: [c] }],
    );
    assert.deepEqual(
      findCycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, []],
        ]),
      ),
      [],
    );
    const text =
      "import type { Core } from '../create-core';\nexport { x } from './y';\nimport './z';\nconst m = await import('./w');";
    assert.deepEqual(
      [...text.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]),
      ['../create-core', './y', './z', './w'],
    );
  });
});
