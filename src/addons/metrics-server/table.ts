/**
 * metrics-server's Tables (pkg/api/table.go, ConvertToTable of its node and
 * pod storage): a Name column, one quantity column per resource its usage
 * has (sorted: cpu, memory), and the Window; a pod's cells sum its
 * containers' usage. `kubectl get nodemetrics` / `podmetrics` print them
 * (NAME, CPU, MEMORY, WINDOW). Rows carry the object as `includeObject`
 * asks (Metadata by default).
 */
import { addQuantity, formatQuantity, parseQuantity, type Quantity } from '../../apimachinery/quantity.js';

type Json = Record<string, unknown>;
type Include = 'None' | 'Metadata' | 'Object';
type Usage = Record<string, string>;

/** The Table version a request's Accept asks for (kubectl: v1, then v1beta1), if it asks for one. */
export function tableVersion(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  for (const range of (accept ?? '').split(',')) {
    const params = new Map(range.split(';').slice(1).map((p) => {
      const [k, v] = p.trim().split('=');
      return [k ?? '', v ?? ''] as const;
    }));
    const v = params.get('v');
    if (params.get('as') === 'Table' && params.get('g') === 'meta.k8s.io' && (v === 'v1' || v === 'v1beta1')) return v;
  }
  return undefined;
}

function includeOf(query: URLSearchParams): Include {
  const v = query.get('includeObject');
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}

/** A pod's usage: its containers' summed (Quantity.Add keeps the first one's format). */
function podUsage(item: Json): Usage {
  const sums = new Map<string, Quantity>();
  for (const c of (item.containers as { usage: Usage }[] | undefined) ?? []) {
    for (const [k, v] of Object.entries(c.usage)) {
      const q = parseQuantity(v);
      const prev = sums.get(k);
      sums.set(k, prev ? addQuantity(prev, q) : q);
    }
  }
  return Object.fromEntries([...sums].map(([k, q]) => [k, formatQuantity(q)]));
}

export function metricsTable(kind: 'NodeMetrics' | 'PodMetrics', items: Json[], version: 'v1' | 'v1beta1', query: URLSearchParams): Json {
  const include = includeOf(query);
  const usages = items.map((i) => (kind === 'NodeMetrics' ? (i.usage as Usage) : podUsage(i)));
  const names = usages.length ? Object.keys(usages[0]!).sort() : [];
  const columnDefinitions = usages.length ? [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    ...names.map((name) => ({ name, type: 'string', format: 'quantity', description: '', priority: 0 })),
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ] : null;
  const rows = items.map((item, i) => ({
    cells: [(item.metadata as { name: string }).name, ...names.map((n) => usages[i]![n] ?? '0'), item.window],
    object: include === 'None' ? null : include === 'Object' ? item : { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: item.metadata },
  }));
  return { kind: 'Table', apiVersion: `meta.k8s.io/${version}`, metadata: {}, columnDefinitions, rows };
}
