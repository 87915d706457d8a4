/**
 * The sample-apiserver image (registry.k8s.io/e2e-test-images/sample-apiserver:1.17.x,
 * k8s.io/sample-apiserver v0.17) as the aggregator e2e test runs it: an extension API server for
 * wardle.example.com (wardle-api.ts) serving HTTPS on --secure-port (443) with the certificate of
 * --tls-cert-file, storing in the etcd of --etcd-servers (its sidecar, etcd-member.ts, reached
 * through the pod's network and etcd's JSON gateway) under /registry/wardle.example.com.
 *
 * As the generic API server does, it starts by reading kube-system's
 * extension-apiserver-authentication ConfigMap with its service account (fatal when it cannot),
 * then authenticates each request by the front-proxy headers the ConfigMap names (X-Remote-User,
 * X-Remote-Group, X-Remote-Extra-), a bearer token (a TokenReview to kube-apiserver) or as
 * system:anonymous, authorizes it with a SubjectAccessReview (answers cached 10 s; v0.17 always
 * allows no path or group), and admits creations with NamespaceLifecycle (the namespace must
 * exist) and BanFlunder.
 *
 * Modelled loosely, and said so: the front-proxy client certificate is not checked (the model's
 * connections carry no client certificates, so any request with the username header is trusted);
 * a watch sends the current objects and ends (the model's messages are whole); managedFields,
 * JSON patch and strategic merge patch, and most of the start-up log are not modelled.
 * --audit-log-path=- writes nothing: without --audit-policy-file no event is recorded (upstream
 * says so only at -v=2).
 */
import { randomUUID } from 'node:crypto';
import { parseLabelSelector } from '../../../selectors/labels.js';
import type { ConnectResult, HttpReply, HttpRequest, HttpResponse } from '../../shell/net-types.js';
import { Pending } from '../../shell/pending.js';
import type { Program, Step } from '../../shell/types.js';
import type { AppContext } from '../app-context.js';
import { goStatusText } from '../go-http.js';
import { klogLine } from '../go-klog.js';
import { loadKeyPair } from '../go-tls-keypair.js';
import { headerOf, httpDate, type Output } from '../http-server.js';
import {
  alreadyExists, apiGroupDoc, bannedBy, apiGroupList, apiResourceList, badRequest, banned, conflict, convertObject, defaultV1alpha1, GROUP, internalSpec,
  invalid, notFound, ordered, resourceOf, STORAGE_VERSION, statusBody, table, validateFlunder, validateName, wantsTable, type StatusError,
} from './wardle-api.js';

type Json = Record<string, unknown>;

export interface SampleAPIServerFlags { etcdServers: string; certFile: string; keyFile: string; securePort: number }

export function sampleAPIServerFlags(args: readonly string[]): SampleAPIServerFlags {
  const flags = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([a-zA-Z0-9_-]+)(?:=(.*))?$/.exec(args[i]!);
    if (m) flags.set(m[1]!, m[2] ?? args[++i] ?? '');
  }
  return {
    etcdServers: flags.get('etcd-servers') ?? '', certFile: flags.get('tls-cert-file') ?? '', keyFile: flags.get('tls-private-key-file') ?? '',
    securePort: Number(flags.get('secure-port') ?? 443),
  };
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const USER_AGENT = 'kube-sample-apiserver/v0.0.0 (linux/amd64) kubernetes/$Format';
const PREFIX = '/registry/wardle.example.com';
const AUTHZ_CACHE_MS = 10_000;

interface User { name: string; groups: string[]; extra: Record<string, string[]>; uid?: string }

/** Go's encoding/json escaping of the marshalled text. */
const goJSON = (v: unknown) => JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function reply(now: Date, status: number, body: string, contentType = 'application/json'): HttpResponse {
  const bytes = Buffer.from(body);
  return { status, reason: goStatusText(status), headers: [['Content-Type', contentType], ['Date', httpDate(now)], ['Content-Length', String(bytes.length)]], body: bytes };
}

const settled = <T>(p: Pending<T>) => new Promise<T>((resolve) => p.onSettle(() => resolve(p.value)));

/** One request over a fresh connection from the pod; undefined when it could not be made. */
async function call(conn: ConnectResult, req: HttpRequest): Promise<HttpResponse | undefined> {
  if (conn.kind !== 'connected') return undefined;
  const r: HttpReply = await settled(conn.exchange(req));
  return r === 'reset' ? undefined : r;
}

const jsonRequest = (method: string, target: string, host: string, body?: unknown, token?: string): HttpRequest => {
  const bytes = body === undefined ? new Uint8Array() : new Uint8Array(Buffer.from(JSON.stringify(body)));
  return {
    method, target, body: bytes,
    headers: [['Host', host], ['User-Agent', USER_AGENT], ['Accept', 'application/json, */*'], ...(token ? [['Authorization', `Bearer ${token}`] as [string, string]] : []),
      ...(body === undefined ? [] : [['Content-Type', 'application/json'] as [string, string], ['Content-Length', String(bytes.length)] as [string, string]])],
  };
};

const parseJSON = (r: HttpResponse | undefined): Json | undefined => {
  try { return r ? JSON.parse(Buffer.from(r.body).toString('utf8')) as Json : undefined; } catch { return undefined; }
};

/** The server's state and its clients: kube-apiserver through the Service address, etcd on its client URL. */
/** The request-header authentication's headers (the ConfigMap's requestheader-* keys, JSON string lists). */
export interface RequestHeaderConfig { usernameHeaders: string[]; groupHeaders: string[]; extraHeaderPrefixes: string[] }

export function requestHeaderConfig(data: Record<string, string> | undefined): RequestHeaderConfig | undefined {
  // Without a client CA for them, the headers are not used at all.
  if (!data?.['requestheader-client-ca-file']) return undefined;
  const list = (key: string): string[] => {
    try { return (JSON.parse(data[key] ?? '[]') as unknown[]).filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase()); } catch { return []; }
  };
  return { usernameHeaders: list('requestheader-username-headers'), groupHeaders: list('requestheader-group-headers'), extraHeaderPrefixes: list('requestheader-extra-headers-prefix') };
}

class WardleServer {
  requestHeader?: RequestHeaderConfig;
  private readonly authzCache = new Map<string, { allowed: boolean; reason: string; until: number }>();

  /** `token` reads the service account's token file: the kubelet rotates it, and client-go rereads it. */
  constructor(private readonly ctx: AppContext, private readonly token: () => string, private readonly etcd: { host: string; port: number }) {}

  private get kube() { return { host: this.ctx.env.KUBERNETES_SERVICE_HOST ?? '', port: Number(this.ctx.env.KUBERNETES_SERVICE_PORT ?? 443) }; }

  kubeCall(method: string, path: string, body?: unknown): Promise<HttpResponse | undefined> {
    const { host, port } = this.kube;
    return call(this.ctx.net!.connect(host, port), jsonRequest(method, path, `${host}:${port}`, body, this.token()));
  }

  private async etcdCall(op: string, body: Json): Promise<Json | undefined> {
    return parseJSON(await call(this.ctx.net!.connect(this.etcd.host, this.etcd.port), jsonRequest('POST', `/v3/kv/${op}`, `${this.etcd.host}:${this.etcd.port}`, body)));
  }

  /** The objects under a key prefix, each with its mod revision; undefined when etcd cannot be reached. */
  async list(prefix: string): Promise<{ items: Json[]; revision: string } | undefined> {
    const key = Buffer.from(prefix);
    const end = Buffer.from(prefix); end[end.length - 1]! += 1;
    const r = await this.etcdCall('range', { key: key.toString('base64'), range_end: end.toString('base64') });
    if (!r) return undefined;
    const items = ((r.kvs as Json[] | undefined) ?? []).map((kv) => withRV(JSON.parse(Buffer.from(String(kv.value), 'base64').toString('utf8')) as Json, String(kv.mod_revision)));
    return { items, revision: String((r.header as Json).revision) };
  }

  async get(key: string): Promise<Json | null | undefined> {
    const r = await this.etcdCall('range', { key: Buffer.from(key).toString('base64') });
    if (!r) return undefined;
    const kv = (r.kvs as Json[] | undefined)?.[0];
    return kv ? withRV(JSON.parse(Buffer.from(String(kv.value), 'base64').toString('utf8')) as Json, String(kv.mod_revision)) : null;
  }

  /** A write guarded by the key's mod revision (0: it must not exist); the new revision, or false when the guard failed. */
  async write(key: string, modRevision: string, value: Json | null): Promise<string | false | undefined> {
    const k = Buffer.from(key).toString('base64');
    const op = value ? { request_put: { key: k, value: Buffer.from(JSON.stringify(value)).toString('base64') } } : { request_delete_range: { key: k } };
    const r = await this.etcdCall('txn', { compare: [{ key: k, target: 'MOD', result: 'EQUAL', mod_revision: modRevision }], success: [op] });
    if (!r) return undefined;
    return r.succeeded === true ? String((r.header as Json).revision) : false;
  }

  /** The requester: front-proxy headers, a bearer token's TokenReview, or anonymous; undefined: 401. */
  async authenticate(req: HttpRequest): Promise<User | undefined> {
    const rh = this.requestHeader;
    const remote = rh?.usernameHeaders.map((h) => headerOf(req, h)).find((v) => v);
    if (rh && remote) {
      const groups = req.headers.filter(([k]) => rh.groupHeaders.includes(k.toLowerCase())).map(([, v]) => v);
      const extra: Record<string, string[]> = {};
      for (const [k, v] of req.headers) {
        const prefix = rh.extraHeaderPrefixes.find((p) => k.toLowerCase().startsWith(p));
        if (prefix) (extra[decodeURIComponent(k.slice(prefix.length).toLowerCase())] ??= []).push(v);
      }
      return { name: remote, groups, extra };
    }
    const auth = headerOf(req, 'Authorization');
    const bearer = auth && /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
    if (!bearer) return { name: 'system:anonymous', groups: ['system:unauthenticated'], extra: {} };
    const r = parseJSON(await this.kubeCall('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: bearer } }));
    const status = (r?.status ?? {}) as { authenticated?: boolean; user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } };
    if (!status.authenticated) return undefined;
    return { name: status.user?.username ?? '', groups: status.user?.groups ?? [], extra: status.user?.extra ?? {}, ...(status.user?.uid ? { uid: status.user.uid } : {}) };
  }

  /** A SubjectAccessReview for the request, its answer cached for 10 s. */
  async authorize(user: User, attrs: Json): Promise<{ allowed: boolean; reason: string }> {
    const key = goJSON([user, attrs]);
    const now = this.ctx.now().getTime();
    const hit = this.authzCache.get(key);
    if (hit && hit.until > now) return hit;
    const spec = { ...attrs, user: user.name, groups: user.groups, ...(Object.keys(user.extra).length ? { extra: user.extra } : {}), ...(user.uid ? { uid: user.uid } : {}) };
    const r = parseJSON(await this.kubeCall('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec }));
    const status = (r?.status ?? {}) as { allowed?: boolean; reason?: string };
    const answer = { allowed: status.allowed === true, reason: status.reason ?? '', until: now + AUTHZ_CACHE_MS };
    if (r) this.authzCache.set(key, answer);
    return answer;
  }
}

/** A decoded JSON value that should be a string, as a string (anything else: empty). */
const str = (v: unknown) => (typeof v === 'string' ? v : '');

const withRV = (o: Json, rv: string): Json => ({ ...o, metadata: { ...(o.metadata as Json), resourceVersion: rv } });

/** The request's resource path: /apis/wardle.example.com/<version>[/namespaces/<ns>]/<resource>[/<name>]. */
function parseResourcePath(path: string): { version: string; namespace: string; resource: string; name: string } | undefined {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] !== 'apis' || parts[1] !== GROUP || parts.length < 3) return undefined;
  const version = parts[2]!;
  let rest = parts.slice(3);
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) { namespace = rest[1]!; rest = rest.slice(2); }
  if (rest.length > 2) return undefined;
  return { version, namespace, resource: rest[0] ?? '', name: rest[1] ?? '' };
}

const VERB_BY_METHOD: Record<string, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** The authorizer's "forbidden" message (responsewriters.forbiddenMessage). */
function forbiddenMessage(user: User, attrs: Json): string {
  const ra = attrs.resourceAttributes as Json | undefined;
  if (!ra) return `forbidden: User "${user.name}" cannot ${String((attrs.nonResourceAttributes as Json).verb)} path "${String((attrs.nonResourceAttributes as Json).path)}"`;
  const res = String(ra.resource);
  const subject = ra.name ? `${res}.${GROUP} "${str(ra.name)}"` : `${res}.${GROUP}`;
  const where = ra.namespace ? ` in the namespace "${str(ra.namespace)}"` : '';
  const scope = ra.namespace ? '' : ' at the cluster scope';
  return `${subject} is forbidden: User "${user.name}" cannot ${String(ra.verb)} resource "${res}" in API group "${GROUP}"${where || scope}`;
}

/** The server's answer to one request. */
async function handle(s: WardleServer, req: HttpRequest, now: () => Date): Promise<HttpResponse> {
  const [path = '/', query = ''] = req.target.split('?');
  const params = new URLSearchParams(query);
  const err = (e: StatusError) => reply(now(), e.code, `${goJSON(statusBody(e))}\n`);
  const user = await s.authenticate(req);
  if (!user) return err({ code: 401, reason: 'Unauthorized', message: 'Unauthorized' });
  const rp = parseResourcePath(path);
  const verb = rp && req.method === 'GET' && !rp.name ? (params.get('watch') === 'true' ? 'watch' : 'list')
    : rp && req.method === 'DELETE' && !rp.name ? 'deletecollection' : VERB_BY_METHOD[req.method ?? ''] ?? req.method.toLowerCase();
  const attrs: Json = rp && rp.resource
    ? { resourceAttributes: { ...(rp.namespace ? { namespace: rp.namespace } : {}), verb, group: GROUP, version: rp.version, resource: rp.resource, ...(rp.name ? { name: rp.name } : {}) } }
    : { nonResourceAttributes: { path, verb: req.method.toLowerCase() } };
  {
    // v0.17 has no always-allowed paths or groups: every request, /healthz too, is a SubjectAccessReview.
    const decision = await s.authorize(user, attrs);
    if (!decision.allowed) {
      const msg = forbiddenMessage(user, attrs);
      const ra = attrs.resourceAttributes as Json | undefined;
      return err({ code: 403, reason: 'Forbidden', message: decision.reason ? `${msg}: ${decision.reason}` : msg, details: ra ? { ...(ra.name ? { name: ra.name } : {}), group: GROUP, kind: ra.resource } : {} });
    }
  }
  if (path === '/healthz' || path === '/livez') return reply(now(), 200, 'ok', 'text/plain; charset=utf-8');
  if (path === '/readyz') {
    const etcdUp = await s.list(`${PREFIX}/health-check/`) !== undefined;
    return etcdUp ? reply(now(), 200, 'ok', 'text/plain; charset=utf-8')
      : reply(now(), 500, '[+]ping ok\n[+]log ok\n[-]etcd failed: reason withheld\n[+]poststarthook/generic-apiserver-start-informers ok\n[+]poststarthook/start-sample-server-informers ok\nreadyz check failed\n', 'text/plain; charset=utf-8');
  }
  if (path === '/apis' || path === '/apis/') return reply(now(), 200, `${goJSON(apiGroupList())}\n`);
  if (path === `/apis/${GROUP}` || path === `/apis/${GROUP}/`) return reply(now(), 200, `${goJSON(apiGroupDoc())}\n`);
  if (rp && !rp.resource) {
    const list = apiResourceList(rp.version);
    if (list) return reply(now(), 200, `${goJSON(list)}\n`);
  }
  const resource = rp && resourceOf(rp.version, rp.resource);
  if (!rp || !resource || (resource.namespaced ? false : rp.namespace !== '')) return reply(now(), 404, '404 page not found\n', 'text/plain; charset=utf-8');
  if (resource.namespaced && !rp.namespace && (rp.name || req.method !== 'GET')) return reply(now(), 404, '404 page not found\n', 'text/plain; charset=utf-8');
  return serveResource(s, req, rp, resource.kind, params, now, err);
}

async function serveResource(s: WardleServer, req: HttpRequest, rp: NonNullable<ReturnType<typeof parseResourcePath>>, kind: string,
  params: URLSearchParams, now: () => Date, err: (e: StatusError) => HttpResponse): Promise<HttpResponse> {
  const { version, namespace, resource, name } = rp;
  const base = `/apis/${GROUP}/${version}${namespace ? `/namespaces/${namespace}` : ''}/${resource}`;
  const keyOf = (n: string) => `${PREFIX}/${resource}/${namespace ? `${namespace}/` : ''}${n}`;
  const unavailable = () => err({ code: 500, reason: 'InternalError', message: 'Internal error occurred: etcd cluster is unavailable or misconfigured' });
  const out = (o: Json) => ordered({ ...convertObject(o, STORAGE_VERSION, version), metadata: { ...(o.metadata as Json), selfLink: `${base}/${String((o.metadata as Json).name)}` } });
  const stored = (o: Json) => {
    const meta = { ...(o.metadata as Json) };
    delete meta.resourceVersion; delete meta.selfLink;
    return ordered({ ...o, metadata: meta });
  };
  const accept = headerOf(req, 'Accept') ?? '';
  if (req.method === 'GET' && !name) {
    const listed = await s.list(`${PREFIX}/${resource}/${namespace ? `${namespace}/` : ''}`);
    if (!listed) return unavailable();
    let selector;
    try { selector = parseLabelSelector(params.get('labelSelector') ?? ''); } catch (e) { return err(badRequest((e as Error).message)); }
    const items = listed.items.filter((o) => selector.matches((o.metadata as Json).labels as Record<string, string> | undefined)).map(out);
    const listMeta = { selfLink: base, resourceVersion: listed.revision };
    if (params.get('watch') === 'true' || params.get('watch') === '1') {
      // A watch from no resourceVersion starts with the current objects as ADDED events; from a given one, with
      // what changed since, which the model does not keep. The model's messages are whole, so the watch then ends,
      // as a server closes a watch at its timeout.
      const rv = params.get('resourceVersion') ?? '';
      const events = rv === '' || rv === '0'
        ? items.map((o) => `${goJSON({ type: 'ADDED', object: wantsTable(accept) ? table([o], { resourceVersion: String((o.metadata as Json).resourceVersion) }) : o })}\n`).join('')
        : '';
      return reply(now(), 200, events);
    }
    if (wantsTable(accept)) return reply(now(), 200, `${goJSON(table(items, listMeta))}\n`);
    return reply(now(), 200, `${goJSON({ kind: `${kind}List`, apiVersion: `${GROUP}/${version}`, metadata: listMeta, items })}\n`);
  }
  if (req.method === 'GET') {
    const o = await s.get(keyOf(name));
    if (o === undefined) return unavailable();
    if (o === null) return err(notFound(resource, name));
    if (wantsTable(accept)) return reply(now(), 200, `${goJSON(table([out(o)], { selfLink: `${base}/${name}`, resourceVersion: String((o.metadata as Json).resourceVersion) }))}\n`);
    return reply(now(), 200, `${goJSON(out(o))}\n`);
  }
  if (req.method === 'DELETE') {
    const o = await s.get(keyOf(name));
    if (o === undefined) return unavailable();
    if (o === null) return err(notFound(resource, name));
    const done = await s.write(keyOf(name), String((o.metadata as Json).resourceVersion), null);
    if (done === undefined) return unavailable();
    if (done === false) return err(conflict(resource, name));
    return reply(now(), 200, `${goJSON({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: GROUP, kind: resource, uid: (o.metadata as Json).uid } })}\n`);
  }
  if (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH') {
    return err({ code: 405, reason: 'MethodNotAllowed', message: `the server does not allow this method on the requested resource`, details: {} });
  }
  let body: Json;
  try {
    body = JSON.parse(Buffer.from(req.body).toString('utf8')) as Json;
  } catch (e) {
    return err(badRequest(`the object provided is unrecognized (${(e as Error).message})`));
  }
  let obj: Json;
  let existing: Json | null | undefined;
  if (req.method === 'PATCH') {
    const ct = (headerOf(req, 'Content-Type') ?? '').split(';')[0]!.trim();
    if (ct !== 'application/merge-patch+json') {
      return err({ code: 415, reason: 'UnsupportedMediaType', message: `the body of the request was in an unknown format - accepted media types include: application/merge-patch+json`, details: {} });
    }
    existing = await s.get(keyOf(name));
    if (existing === undefined) return unavailable();
    if (existing === null) return err(notFound(resource, name));
    obj = mergePatch(convertObject(existing, STORAGE_VERSION, version), body) as Json;
  } else {
    obj = body;
  }
  if (obj.kind !== kind || obj.apiVersion !== `${GROUP}/${version}`) {
    return err(badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: the object provided is of kind "${String(obj.kind)}" and apiVersion "${String(obj.apiVersion)}"`));
  }
  if (version === 'v1alpha1') defaultV1alpha1(obj);
  const meta = { ...((obj.metadata ?? {}) as Json) };
  if (namespace && meta.namespace && meta.namespace !== namespace) return err(badRequest('the namespace of the provided object does not match the namespace sent on the request'));
  if (namespace) meta.namespace = namespace;
  const spec = kind === 'Flunder' ? internalSpec(version, (obj.spec ?? {}) as Json) : undefined;
  if (req.method === 'POST') {
    if (!meta.name && typeof meta.generateName === 'string' && meta.generateName) meta.name = `${meta.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    const causes = [...validateName(str(meta.name), str(meta.generateName)), ...(spec ? validateFlunder(spec) : [])];
    if (causes.length) return err(invalid(kind, str(meta.name), causes));
    const newName = String(meta.name);
    if (namespace) {
      const ns = await s.kubeCall('GET', `/api/v1/namespaces/${namespace}`);
      if (ns?.status === 404) return err({ code: 404, reason: 'NotFound', message: `namespaces "${namespace}" not found`, details: { name: namespace, kind: 'namespaces' } });
      const phase = (parseJSON(ns)?.status as Json | undefined)?.phase;
      if (phase === 'Terminating') return err({ code: 403, reason: 'Forbidden', message: `${resource}.${GROUP} "${newName}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, details: { name: newName, group: GROUP, kind: resource } });
    }
    if (kind === 'Flunder') {
      const fischers = await s.list(`${PREFIX}/fischers/`);
      if (!fischers) return unavailable();
      if (bannedBy(fischers.items, newName)) return err(banned(resource, newName));
    }
    delete meta.resourceVersion;
    Object.assign(meta, { uid: randomUUID(), creationTimestamp: now().toISOString().replace(/\.\d+Z$/, 'Z') });
    const toStore = stored(convertObject({ ...obj, metadata: meta }, version, STORAGE_VERSION));
    const rv = await s.write(keyOf(newName), '0', toStore);
    if (rv === undefined) return unavailable();
    if (rv === false) return err(alreadyExists(resource, newName));
    return reply(now(), 201, `${goJSON(out(withRV(toStore, rv)))}\n`);
  }
  // PUT and PATCH: an update of the stored object, guarded by the resourceVersion given (or the current one).
  existing ??= await s.get(keyOf(name));
  if (existing === undefined) return unavailable();
  if (existing === null) return err(notFound(resource, name));
  if (meta.name !== name) return err(badRequest('the name of the object (' + str(meta.name) + ') does not match the name on the URL (' + name + ')'));
  const old = existing.metadata as Json;
  const rvGiven = typeof meta.resourceVersion === 'string' && meta.resourceVersion !== '' ? meta.resourceVersion : undefined;
  if (req.method === 'PUT' && !rvGiven) {
    return err(invalid(kind, name, ['metadata.resourceVersion: Invalid value: 0x0: must be specified for an update']));
  }
  if (spec) {
    const causes = validateFlunder(spec);
    if (causes.length) return err(invalid(kind, name, causes));
  }
  Object.assign(meta, { uid: old.uid, creationTimestamp: old.creationTimestamp });
  const toStore = stored(convertObject({ ...obj, metadata: meta }, version, STORAGE_VERSION));
  const rv = await s.write(keyOf(name), rvGiven ?? String(old.resourceVersion), toStore);
  if (rv === undefined) return unavailable();
  if (rv === false) return err(conflict(resource, name));
  return reply(now(), 200, `${goJSON(out(withRV(toStore, rv)))}\n`);
}

/** RFC 7386 JSON merge patch. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [k, v] of Object.entries(patch as Json)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** klog.Fatal: the line, then exit 255. */
function* fatal(now: Date, source: string, message: string): Generator<Step, void> {
  yield klogLine('F', now, source, message);
  yield { kind: 'exit', code: 255 };
}

export function sampleAPIServer(ctx: AppContext, args: readonly string[]): Program {
  const flags = sampleAPIServerFlags(args);
  const read = (p: string) => ctx.fs?.read(ctx.fs.resolve(p));
  const logs: Output[] = [];
  let wake = new Pending<unknown>();
  const log = (o: Output) => { logs.push(o); wake.settle(undefined); };
  let listener: { close(): void } | undefined;
  let ended = false;
  const run = function* (): Generator<Step, void> {
    if (!ctx.env.KUBERNETES_SERVICE_HOST || !ctx.env.KUBERNETES_SERVICE_PORT) {
      yield* fatal(ctx.now(), 'main.go:39', 'unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
      return;
    }
    const token = read(`${SA_DIR}/token`);
    if (token === undefined) { yield* fatal(ctx.now(), 'main.go:39', `open ${SA_DIR}/token: no such file or directory`); return; }
    const pair = loadKeyPair(read, flags.certFile, flags.keyFile);
    if ('error' in pair) { yield* fatal(ctx.now(), 'main.go:39', pair.error); return; }
    const etcdURL = /^https?:\/\/(\[[^\]]+\]|[^:/]+)(?::(\d+))?/.exec(flags.etcdServers.split(',')[0] ?? '');
    const etcd = { host: (etcdURL?.[1] ?? '127.0.0.1').replace(/^\[|\]$/g, ''), port: Number(etcdURL?.[2] ?? 2379) };
    if (!ctx.net) { yield { kind: 'wait', on: new Pending<unknown>() }; return; }
    const server = new WardleServer(ctx, () => (read(`${SA_DIR}/token`) ?? token).trim(), etcd);
    // The delegated authentication's configuration: kube-system/extension-apiserver-authentication.
    const cm = new Pending<HttpResponse | undefined>();
    void server.kubeCall('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication').then((r) => cm.settle(r));
    while (!cm.settled) yield { kind: 'wait', on: cm };
    const answer = cm.value;
    // NotFound: no request-header configuration, so the front-proxy headers are not trusted.
    if (answer?.status === 200) server.requestHeader = requestHeaderConfig(parseJSON(answer)?.data as Record<string, string> | undefined);
    else if (answer?.status !== 404) {
      if (answer?.status === 403) {
        yield klogLine('W', ctx.now(), 'authentication.go:348', "Unable to get configmap/extension-apiserver-authentication in kube-system.  Usually fixed by 'kubectl create rolebinding -n kube-system ROLEBINDING_NAME --role=extension-apiserver-authentication-reader --serviceaccount=YOUR_NS:YOUR_SA'");
      }
      const cause = str(parseJSON(answer)?.message) || `Get https://${ctx.env.KUBERNETES_SERVICE_HOST}:${ctx.env.KUBERNETES_SERVICE_PORT}/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication: dial tcp ${ctx.env.KUBERNETES_SERVICE_HOST}:${ctx.env.KUBERNETES_SERVICE_PORT}: connect: connection refused`;
      const message = `unable to load configmap based request-header-client-ca-file: ${cause}`;
      // cobra's report (its usage text, which follows it, is not modelled), then main's klog.Fatal.
      yield { kind: 'stderr', text: `Error: ${message}\n` };
      yield* fatal(ctx.now(), 'main.go:39', message);
      return;
    }
    listener = ctx.net.listen(flags.securePort, (req) => {
      const out = new Pending<HttpReply>();
      handle(server, req, ctx.now).then((r) => out.settle(r), (e: unknown) => {
        log(klogLine('E', ctx.now(), 'runtime.go:78', `Observed a panic: ${(e as Error).message}`));
        out.settle('reset');
      });
      return out;
    }, undefined, { certificate: pair.chain });
    if (!listener) {
      yield* fatal(ctx.now(), 'main.go:39', `failed to listen on 0.0.0.0:${flags.securePort}: listen tcp 0.0.0.0:${flags.securePort}: bind: address already in use`);
      return;
    }
    yield klogLine('I', ctx.now(), 'secure_serving.go:178', `Serving securely on [::]:${flags.securePort}`);
    while (!ended) {
      while (logs.length) yield logs.shift()!;
      wake = new Pending<unknown>();
      yield { kind: 'wait', on: wake };
    }
  };
  const gen = run();
  return {
    next: () => gen.next(),
    terminate: () => { ended = true; listener?.close(); return [{ kind: 'exit', code: 0 } as Step][Symbol.iterator](); },
  };
}
