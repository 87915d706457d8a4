import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** ../shared beside the repository (tests compile to dist/test/helpers). */
export const SHARED_DIR = join(HERE, '..', '..', '..', '..', 'shared');
export const GOLDEN_DIR = join(SHARED_DIR, 'golden');
/** Real-world manifests no one here wrote: test input (../shared/corpus/PROVENANCE.tsv). */
export const CORPUS_DIR = join(SHARED_DIR, 'corpus');

/**
 * test/golden in the repository: cases in the same format whose answers are
 * derived from upstream source (each names it in `derived`), not recorded.
 */
export const LOCAL_GOLDEN_DIR = join(HERE, '..', '..', '..', 'test', 'golden');

/**
 * Who sends a request: the admin client unless `credential` names a user (and
 * groups) to send it with a client certificate of the cluster CA, as
 * `winkube kubeconfig --user` issues.
 */
export interface GoldenCredential { user: string; groups?: string[] }
export interface GoldenRequest { method: string; path: string; headers?: Record<string, string>; body?: unknown; credential?: GoldenCredential }
export interface GoldenCase {
  name: string;
  description: string;
  setup: GoldenRequest[];
  request: GoldenRequest;
  response: { status: number; headers: Record<string, string>; body: unknown };
  teardown: GoldenRequest[];
  adjusted?: string;
  derived?: string;
}

/** The cases of `dir` (the recorded corpus by default) whose file names start with `prefix`. */
export function goldenCases(prefix: string, dir: string = GOLDEN_DIR): GoldenCase[] {
  const cases = join(dir, 'cases');
  return readdirSync(cases).filter((f) => f.startsWith(prefix) && f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(cases, f), 'utf8')) as GoldenCase);
}

export function goldenDiscovery(file: string): any {
  return JSON.parse(readFileSync(join(GOLDEN_DIR, 'discovery', file), 'utf8'));
}

/** Keys the golden README says vary between runs. */
const VOLATILE = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'time', 'clusterIP', 'clusterIPs', 'nodePort',
  'continue', 'selfLink', 'generation', 'managedFields', 'deletionTimestamp', 'startTime', 'lastTransitionTime',
  'lastProbeTime', 'lastHeartbeatTime', 'lastUpdateTime', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'renewTime',
  'acquireTime', 'remainingItemCount', 'podIP', 'podIPs', 'hostIP', 'hostIPs', 'buildDate', 'gitCommit', 'gitVersion',
  'goVersion', 'minor', 'age']);

const GENERATED_SUFFIX = /\b(kube-api-access|default-token)-[a-z0-9]{5}\b/g;

/**
 * A Table's Age cells are the `age` of its rows (the cases call them volatile): a row read one
 * second after its object was created says 1s, not 0s.
 */
function maskAgeCells(o: Record<string, any>): Record<string, unknown> {
  if (o.kind !== 'Table' || !Array.isArray(o.columnDefinitions) || !Array.isArray(o.rows)) return o;
  const age = o.columnDefinitions.findIndex((c: any) => c?.name === 'Age');
  if (age === -1) return o;
  return { ...o, rows: o.rows.map((r: any) => (Array.isArray(r?.cells) ? { ...r, cells: r.cells.map((c: unknown, i: number) => (i === age ? '<age>' : c)) } : r)) };
}

/** The comparable form of a body: volatile keys dropped, generated suffixes masked. */
export function normalize(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(GENERATED_SUFFIX, '$1-xxxxx');
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!VOLATILE.has(k)) out[k] = normalize(x);
    return maskAgeCells(out);
  }
  return v;
}
