/**
 * The HTTP routes of a node's kubelet server (pkg/kubelet/server/server.go
 * NewServer) that `nodes/NAME/proxy/...` reaches: healthz and its checks,
 * `/pods`, `/stats/summary`, `/metrics/resource`, `/configz` and the
 * system-log handler `/logs/`. NodeLogQuery is beta and off by default in
 * v1.32 (and enableSystemLogQuery false), so `/logs/` is the plain
 * http.FileServer of /var/log/ and `?query=` changes nothing. Anything else
 * answers as the kubelet's mux does: Go's `404 page not found`, or
 * go-restful's `404: Page Not Found` below a web service's root.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { NodeConfig } from '../pool.js';
import { kubeletConfiguration, type ClusterDNS } from './kubelet-config.js';
import { resourceMetricFamilies } from './resource-metrics.js';
import { PROMETHEUS_TEXT_CONTENT_TYPE, writePrometheusText, type MetricFamily } from '../../exposition/prometheus-text.js';
import { buildSummary } from './stats-summary.js';
import type { ServedWorkStore } from '../usage/served-work.js';

/** What the kubelet's server reads from its node. */
export interface KubeletView {
  cfg: NodeConfig;
  index: number;
  bootTime: Date;
  kubeletStartTime: Date;
  dns: ClusterDNS;
  /** The pods bound to the node. */
  pods(): Promise<KObject[]>;
  /** The CPU the containers' servers spent on requests. */
  served?: ServedWorkStore;
  /** Bytes of the images the node's runtime holds. */
  imageBytes(): number;
  /** The node's cumulative CPU time (core-nanoseconds) given its rate now; see stats-summary.ts. */
  nodeCPUTime?(nowMs: number, nanoCores: number): number;
}

export interface KubeletResponse { status: number; headers: Record<string, string>; body: string }

const TEXT = 'text/plain; charset=utf-8';
const HEALTH_CHECKS = ['ping', 'log', 'syncloop'];

function text(status: number, body: string): KubeletResponse {
  return { status, headers: { 'Content-Type': TEXT, 'X-Content-Type-Options': 'nosniff' }, body };
}

/** net/http's NotFound, as the Go ServeMux answers a path nothing is registered for. */
const goNotFound = () => text(404, '404 page not found\n');

/** go-restful's ServiceErrors (WriteErrorString; net/http sniffs the text's type). */
const restfulError = (status: number, body: string): KubeletResponse => ({ status, headers: { 'Content-Type': TEXT }, body });
/** A path below a web service's root that no route matches. */
const restfulNotFound = () => restfulError(404, '404: Page Not Found');
/** A path a web service routes for GET only, asked with another method. */
const restfulMethodNotAllowed = () => restfulError(405, '405: Method Not Allowed');

/** go-restful's WriteAsJson: PrettyPrintResponses is on, MarshalIndent with a one-space indent. */
function restfulJSON(body: unknown): KubeletResponse {
  return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body, null, 1) };
}

/** healthz.InstallHandler: `/healthz` (`?verbose` lists each check) and `/healthz/<check>`. */
function healthz(path: string, query: URLSearchParams): KubeletResponse {
  if (path === '/healthz') {
    if (!query.has('verbose')) return text(200, 'ok');
    return text(200, `${HEALTH_CHECKS.map((c) => `[+]${c} ok`).join('\n')}\nhealthz check passed\n`);
  }
  const check = path.slice('/healthz/'.length);
  return HEALTH_CHECKS.includes(check) ? text(200, 'ok') : goNotFound();
}

/** http.FileServer's directory listing. */
function dirList(names: string[]): KubeletResponse {
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
  const href = (s: string) => encodeURI(s).replace(/#/g, '%23').replace(/\?/g, '%3F');
  const items = [...names].sort().map((n) => `<a href="${href(n)}">${escape(n)}</a>\n`).join('');
  return {
    status: 200, headers: { 'Content-Type': 'text/html; charset=utf-8' },
    body: `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${items}</pre>\n`,
  };
}

/** http.FileServer's redirect of a directory asked for without its trailing slash. */
function dirRedirect(base: string): KubeletResponse {
  return { status: 301, headers: { Location: `${base}/`, 'Content-Type': 'text/html; charset=utf-8' }, body: `<a href="${base}/">Moved Permanently</a>.\n\n` };
}

interface PodLike { metadata: { name?: string; namespace?: string; uid?: string }; status?: { containerStatuses?: Array<{ name: string; containerID?: string }> } }

/**
 * /var/log as the kubelet keeps it: `pods/<namespace>_<name>_<uid>/` per pod
 * and `containers/<pod>_<namespace>_<container>-<id>.log` per container. The
 * node model knows nothing else of the machine's /var/log.
 */
async function logs(view: KubeletView, rest: string): Promise<KubeletResponse> {
  const pods = (await view.pods()) as PodLike[];
  const podDirs = pods.map((p) => `${p.metadata.namespace}_${p.metadata.name}_${p.metadata.uid}/`);
  const containerLinks = pods.flatMap((p) => (p.status?.containerStatuses ?? [])
    .filter((c) => c.containerID)
    .map((c) => `${p.metadata.name}_${p.metadata.namespace}_${c.name}-${c.containerID!.replace(/^[a-z]+:\/\//, '')}.log`));
  switch (rest) {
    case '': return dirList(['containers/', 'pods/']);
    case 'pods': case 'containers': return dirRedirect(rest);
    case 'pods/': return dirList(podDirs);
    case 'containers/': return dirList(containerLinks);
    default: return goNotFound();
  }
}

/** `/metrics/resource`'s samples, for a scraper in this process (the text is their exposition, nothing more). */
export async function resourceMetrics(view: KubeletView, now = new Date()): Promise<MetricFamily[]> {
  // The resource metrics collector reads GetCPUAndMemoryStats.
  return resourceMetricFamilies(await summary(view, now, true));
}

/** The kubelet's answer to GET `path` (its own path, after the API server's proxy prefix). */
export async function serveKubelet(view: KubeletView, path: string, query: URLSearchParams, now = new Date(),
  method = 'GET'): Promise<KubeletResponse> {
  if (path === '/healthz' || path.startsWith('/healthz/')) return healthz(path, query);
  // /pods, /stats/ and /logs/ are go-restful web services with GET routes only.
  const getOnly = path === '/pods' || path === '/pods/' || path.startsWith('/stats/') || path.startsWith('/logs/');
  if (getOnly && method !== 'GET') return restfulMethodNotAllowed();
  if (path === '/pods' || path === '/pods/') {
    // encodePods: the legacy codec's JSON (one line and a newline), written as is.
    const list = { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: await view.pods() };
    return { status: 200, headers: { 'Content-Type': 'application/json' }, body: `${JSON.stringify(list)}\n` };
  }
  if (path === '/stats/summary' || path === '/stats/summary/') {
    // only_cpu_and_memory=true (exactly one value): GetCPUAndMemoryStats.
    const only = query.getAll('only_cpu_and_memory');
    return restfulJSON(await summary(view, now, only.length === 1 && only[0] === 'true'));
  }
  if (path.startsWith('/stats/') || path === '/stats') return restfulNotFound();
  if (path === '/metrics/resource') {
    return { status: 200, headers: { 'Content-Type': PROMETHEUS_TEXT_CONTENT_TYPE }, body: writePrometheusText(await resourceMetrics(view, now)) };
  }
  if (path === '/configz') {
    // configz.write: json.Marshal of the registered configs.
    return {
      status: 200, headers: { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' },
      body: JSON.stringify({ kubeletconfig: kubeletConfiguration(view.cfg, view.index, view.dns) }),
    };
  }
  // http.StripPrefix("/logs/", ...): `/logs` itself does not carry the prefix.
  if (path.startsWith('/logs/')) return logs(view, path.slice('/logs/'.length));
  return goNotFound();
}

async function summary(view: KubeletView, now: Date, cpuAndMemoryOnly = false) {
  return buildSummary({
    cpuAndMemoryOnly,
    cfg: view.cfg, bootTime: view.bootTime, kubeletStartTime: view.kubeletStartTime, now,
    pods: await view.pods(), imageBytes: view.imageBytes(), ...(view.served ? { served: view.served } : {}),
    ...(view.nodeCPUTime ? { nodeCPUTime: (nowMs: number, nanoCores: number) => view.nodeCPUTime!(nowMs, nanoCores) } : {}),
  });
}
