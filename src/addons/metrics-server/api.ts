/**
 * The routes metrics-server's generic API server answers (v0.7 pkg/api
 * node.go, pod.go): discovery of metrics.k8s.io/v1beta1, NodeMetrics and
 * PodMetrics lists (label and field selectors over the node and pod
 * listers, sorted by name, by namespace then name) and gets, and the
 * health checks. A listed object without two stored points is left out; a
 * get of one answers NotFound for its metrics resource.
 */
import type { KObject } from '../../apimachinery/object.js';
import { errors, StatusError } from '../../apimachinery/errors.js';
import { parseLabelSelector, type LabelSelector } from '../../selectors/labels.js';
import { parseFieldSelector, type FieldSelector } from '../../selectors/fields.js';
import { apiGroup, apiResourceList, METRICS_GROUP, metricsList, nodeMetrics, podMetrics } from './objects.js';
import type { MetricsStorage } from './storage.js';
import { metricsTable, tableVersion } from './table.js';

export interface MetricsSource {
  /** The node lister. */
  nodes(): KObject[];
  /** The pod lister of a namespace ('' = every namespace). */
  pods(namespace: string): KObject[];
  storage: MetricsStorage;
}

export interface MetricsResponse { status: number; contentType: string; body: string }

type Json = Record<string, unknown>;

const json = (body: unknown, status = 200): MetricsResponse => ({ status, contentType: 'application/json', body: JSON.stringify(body) });
const text = (status: number, body: string): MetricsResponse => ({ status, contentType: 'text/plain; charset=utf-8', body });
const statusError = (e: StatusError): MetricsResponse => json(e.status, e.status.code);

const PREFIX = `/apis/${METRICS_GROUP}/v1beta1`;
const NODE_METRICS = { group: METRICS_GROUP, resource: 'nodemetrics' };
const POD_METRICS = { group: METRICS_GROUP, resource: 'podmetrics' };

interface Selectors { label?: LabelSelector; field?: FieldSelector }

function selectors(query: URLSearchParams): Selectors {
  const out: Selectors = {};
  try {
    const l = query.get('labelSelector');
    if (l) out.label = parseLabelSelector(l);
    const f = query.get('fieldSelector');
    if (f) out.field = parseFieldSelector(f);
  } catch (e) {
    throw errors.badRequest((e as Error).message);
  }
  return out;
}

function selected(o: KObject, s: Selectors): boolean {
  if (s.label && !s.label.matches(o.metadata.labels ?? {})) return false;
  if (s.field && !s.field.matches((f) => (f === 'metadata.name' ? o.metadata.name : f === 'metadata.namespace' ? o.metadata.namespace : undefined))) return false;
  return true;
}

const byName = (a: KObject, b: KObject) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0);
const byNamespaceName = (a: KObject, b: KObject) => {
  const na = a.metadata.namespace ?? ''; const nb = b.metadata.namespace ?? '';
  return na !== nb ? (na < nb ? -1 : 1) : byName(a, b);
};

function nodeItem(src: MetricsSource, node: KObject, now: Date): Json | undefined {
  const usage = src.storage.nodeUsage(node.metadata.name ?? '');
  return usage ? nodeMetrics(node.metadata, usage, now) : undefined;
}

function podItem(src: MetricsSource, pod: KObject, now: Date): Json | undefined {
  const u = src.storage.podUsage(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
  return u ? podMetrics(pod.metadata, { ...u, containers: [...u.containers].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) }, now) : undefined;
}

function resources(method: string, rest: string, query: URLSearchParams, src: MetricsSource, now: Date, table: 'v1' | 'v1beta1' | undefined): MetricsResponse {
  const parts = rest.split('/').filter((p) => p !== '');
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length >= 3) { namespace = parts[1]!; parts.splice(0, 2); }
  const [resource, name, extra] = parts;
  if ((resource !== 'nodes' && resource !== 'pods') || extra !== undefined || (resource === 'nodes' && namespace)) return text(404, '404 page not found\n');
  if (method !== 'GET' || query.get('watch') === 'true' || query.get('watch') === '1') return statusError(errors.methodNotAllowed());
  if (resource === 'nodes') {
    if (name === undefined) {
      const s = selectors(query);
      const items = src.nodes().filter((n) => selected(n, s)).sort(byName).map((n) => nodeItem(src, n, now)).filter((x): x is Json => x !== undefined);
      return json(table ? metricsTable('NodeMetrics', items, table, query) : metricsList('NodeMetricsList', items));
    }
    const node = src.nodes().find((n) => n.metadata.name === name);
    if (!node) return statusError(errors.notFound({ group: '', resource: 'node' }, name));
    const item = nodeItem(src, node, now);
    if (!item) return statusError(errors.notFound(NODE_METRICS, name));
    return json(table ? metricsTable('NodeMetrics', [item], table, query) : item);
  }
  if (name === undefined) {
    const s = selectors(query);
    const items = src.pods(namespace).filter((p) => selected(p, s)).sort(byNamespaceName).map((p) => podItem(src, p, now)).filter((x): x is Json => x !== undefined);
    return json(table ? metricsTable('PodMetrics', items, table, query) : metricsList('PodMetricsList', items));
  }
  const pod = src.pods(namespace).find((p) => p.metadata.name === name);
  if (!pod) return statusError(errors.notFound({ group: '', resource: 'pods' }, name));
  const item = podItem(src, pod, now);
  if (!item) return statusError(errors.notFound(POD_METRICS, `${namespace}/${name}`));
  return json(table ? metricsTable('PodMetrics', [item], table, query) : item);
}

/** The answer to one request that reached metrics-server. */
/** `accept`: the request's Accept header (a Table when it asks for one, as kubectl get does). */
export function serveMetricsAPI(method: string, path: string, query: URLSearchParams, src: MetricsSource, now: Date, accept?: string): MetricsResponse {
  try {
    if (path === '/healthz' || path === '/livez' || path === '/readyz') return text(200, 'ok');
    if (path === '/apis' || path === '/apis/') return json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup()] });
    if (path === `/apis/${METRICS_GROUP}` || path === `/apis/${METRICS_GROUP}/`) return json(apiGroup());
    if (path === PREFIX || path === `${PREFIX}/`) return json(apiResourceList());
    if (path.startsWith(`${PREFIX}/`)) return resources(method, path.slice(PREFIX.length), query, src, now, tableVersion(accept));
    return text(404, '404 page not found\n');
  } catch (e) {
    if (e instanceof StatusError) return statusError(e);
    throw e;
  }
}
