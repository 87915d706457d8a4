/**
 * The declared layering of src/: every top-level folder has a rank, and a
 * file may import only from its own folder or from a folder of lower rank.
 * That rules out folder-level import cycles by construction; the cycle check
 * below still runs on its own so that a folder missing from the table, or a
 * table edited carelessly, cannot hide one.
 *
 *   rank  folders
 *   ----  -------------------------------------------------------------
 *     0   apimachinery                 errors, object types, quantity, duration, clock, version
 *     1   meta, storage, patch,        names, object helpers, write options; storage; patches;
 *         authorization                RBAC rule evaluation, authorizers, the 403 text, escalation checks
 *     2   selectors, pki, protobuf,    label and field selectors (label keys are validated as names),
 *         network, cel, exposition     certificates, wire formats, address pools; the CEL
 *                                      environment (functions beyond cel's standard library);
 *                                      the Prometheus text exposition format
 *     3   openapi, os,                 schemas and decoding; the OS rules as pure functions;
 *         component-helpers            object rules components share with the server (PV binding)
 *     4   validation, fieldmanager     per-kind validation; managedFields and apply
 *     5   admission                    admission plugins and their chain
 *     6   registry                     the generic store and one module per resource
 *     7   flowcontrol                  API Priority and Fairness
 *     8   api, client                  the HTTPS server; the client boundary components talk through
 *     9   events                       the event recorder
 *    10   scheduler
 *    11   controllers, node, addons    controllers; emulated nodes and kubelets; add-ons (the GMSA webhook)
 *    12   ui                           the web view: its page, bundle and read-only endpoint (server side), the page's code (web/)
 *         lint                         `winkube lint`'s rules over manifests (validation, os, scheduler plugins, node pools)
 *         joinconfig                   `winkube join-config`: a Windows node's files for a real cluster, from the node's builders
 *    13   cluster                      wires servers, clients and components together
 *         webhook                      `winkube webhook`: the lint rules as an admission webhook
 *         doctor                       `winkube doctor`: the Windows troubleshooting guide as checks over a live
 *                                      cluster's objects (above lint, whose image and pod-OS rules it reuses)
 *    14   cli                          the `winkube` commands
 *
 * The components (events, scheduler, controllers, node, addons) reach the API through
 * `src/client` only, as upstream's do through client-go: they must not import
 * the server side (registry, api, storage, flowcontrol), the wiring (cluster),
 * nor the in-process client `client/loopback.ts` (only cluster/ builds one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const RANKS: Record<string, number> = {
  apimachinery: 0,
  meta: 1, storage: 1, patch: 1, authorization: 1,
  selectors: 2, pki: 2, protobuf: 2, network: 2, cel: 2, exposition: 2,
  openapi: 3, os: 3, 'component-helpers': 3,
  validation: 4, fieldmanager: 4,
  admission: 5,
  registry: 6,
  flowcontrol: 7,
  api: 8, client: 8,
  events: 9,
  scheduler: 10,
  controllers: 11, node: 11, addons: 11,
  ui: 12, lint: 12, joinconfig: 12,
  cluster: 13, webhook: 13, doctor: 13,
  cli: 14,
};

// lint, joinconfig, ui and doctor read a real cluster over HTTPS as a client does, so they are held to the components' rule.
const COMPONENTS = new Set(['events', 'scheduler', 'controllers', 'node', 'addons', 'lint', 'joinconfig', 'ui', 'doctor']);
/** Folders (or, with a file name, single files) a component must not import. */
const FORBIDDEN_TO_COMPONENTS = ['registry', 'api', 'storage', 'flowcontrol', 'cluster', 'client/loopback.ts'];

// dist/test/unit/layering.test.js -> the repository root; the sources, not the compiled output, are read.
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SRC = join(ROOT, 'src');

interface Import {
  /** Importing file, relative to src/ with forward slashes. */
  file: string;
  line: number;
  specifier: string;
  /** Imported file, relative to src/ (imports that leave src/ are not collected). */
  target: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const toPosix = (path: string): string => path.split(sep).join('/');

/**
 * Relative imports of one file: static `import`/`export ... from`, side-effect
 * imports and `import()` (expressions and type queries alike), as TypeScript's
 * own pre-processor finds them, so comments and strings are not mistaken for imports.
 */
function importsOf(path: string): Import[] {
  const text = readFileSync(path, 'utf8');
  const file = toPosix(relative(SRC, path));
  const info = ts.preProcessFile(text, true, true);
  const out: Import[] = [];
  for (const ref of info.importedFiles) {
    if (!ref.fileName.startsWith('.')) continue;
    const resolved = relative(SRC, resolve(dirname(path), ref.fileName)).replace(/\.js$/, '.ts');
    if (resolved.startsWith('..')) continue;
    const line = text.slice(0, ref.pos).split('\n').length;
    out.push({ file, line, specifier: ref.fileName, target: toPosix(resolved) });
  }
  return out;
}

/** The top-level folder under src/ ('(src)' for a file directly in src/). */
function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '(src)' : file.slice(0, slash);
}

/** Whether an import from one folder to another breaks the declared order (unranked folders count as breaking it). */
function againstRanks(from: string, to: string): boolean {
  const fromRank = RANKS[from];
  const toRank = RANKS[to];
  return fromRank === undefined || toRank === undefined || toRank >= fromRank;
}

const describe = (imp: Import): string => `src/${imp.file}:${imp.line} imports '${imp.specifier}' (src/${imp.target})`;

const files = sourceFiles(SRC);
const imports = files.flatMap(importsOf);

test('every folder under src has a declared rank', () => {
  const unranked = [...new Set(files.map((f) => folderOf(toPosix(relative(SRC, f)))))]
    .filter((folder) => !(folder in RANKS))
    .sort();
  assert.deepEqual(unranked, [], `folders missing from the layering table in test/unit/layering.test.ts: ${unranked.join(', ')}`);
});

test('a file imports only from its own folder or from a lower-ranked one', () => {
  const violations: string[] = [];
  for (const imp of imports) {
    const from = folderOf(imp.file);
    const to = folderOf(imp.target);
    if (from === to) continue;
    const fromRank = RANKS[from];
    const toRank = RANKS[to];
    if (fromRank === undefined || toRank === undefined) continue; // reported by the test above
    if (toRank >= fromRank) violations.push(`${describe(imp)}: ${from} (rank ${fromRank}) -> ${to} (rank ${toRank})`);
  }
  assert.equal(violations.length, 0, `${violations.length} imports against the layering:\n${violations.join('\n')}`);
});

test('no folder-level import cycle', () => {
  const edges = new Map<string, Map<string, Import>>();
  for (const imp of imports) {
    const from = folderOf(imp.file);
    const to = folderOf(imp.target);
    if (from === to) continue;
    let out = edges.get(from);
    if (!out) edges.set(from, (out = new Map()));
    if (!out.has(to)) out.set(to, imp);
  }
  const cycles = stronglyConnected(edges).filter((c) => c.length > 1);
  const report = cycles.map((cycle) => {
    const members = new Set(cycle);
    const inside = cycle.flatMap((from) =>
      [...(edges.get(from) ?? [])].filter(([to]) => members.has(to)).map(([to, imp]) =>
        `  ${from} -> ${to}${againstRanks(from, to) ? ' (against the ranks)' : ''}, e.g. ${describe(imp)}`));
    return `cycle among ${[...cycle].sort().join(', ')}:\n${inside.sort().join('\n')}`;
  });
  assert.equal(cycles.length, 0, report.join('\n'));
});

test('components import neither the server side, the wiring, nor the loopback client', () => {
  const violations: string[] = [];
  for (const imp of imports) {
    const from = folderOf(imp.file);
    if (!COMPONENTS.has(from)) continue;
    const hit = FORBIDDEN_TO_COMPONENTS.find((f) => imp.target === f || imp.target.startsWith(`${f}/`));
    if (hit) violations.push(`${describe(imp)}: a component must not import ${hit}`);
  }
  assert.equal(violations.length, 0, `${violations.length} component imports outside src/client:\n${violations.join('\n')}`);
});

/** Tarjan's strongly connected components of the folder graph. */
function stronglyConnected(edges: Map<string, Map<string, Import>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      out.push(component);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}
