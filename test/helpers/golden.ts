import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** ../shared/golden beside the repository (tests compile to dist/test/helpers). */
export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'shared', 'golden');

export interface GoldenRequest { method: string; path: string; headers?: Record<string, string>; body?: unknown }
export interface GoldenCase {
  name: string;
  description: string;
  setup: GoldenRequest[];
  request: GoldenRequest;
  response: { status: number; headers: Record<string, string>; body: unknown };
  teardown: GoldenRequest[];
}

export function goldenCases(prefix: string): GoldenCase[] {
  const dir = join(GOLDEN_DIR, 'cases');
  return readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.json')).sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as GoldenCase);
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

/** The comparable form of a body: volatile keys dropped, generated suffixes masked. */
export function normalize(v: unknown): unknown {
  if (typeof v === 'string') return v.replace(GENERATED_SUFFIX, '$1-xxxxx');
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!VOLATILE.has(k)) out[k] = normalize(x);
    return out;
  }
  return v;
}
