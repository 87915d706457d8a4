import type { ContainerLogReader } from '../apimachinery/container-log.js';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../registry/store.js';
import type { Authenticator, User } from './auth.js';
import { aggregatedVersionWanted, Discovery, versionInfo } from './discovery.js';
import { APIServiceIndex } from './apiservice-index.js';
import { RemoteDiscovery, type ServiceGet } from './remote-discovery.js';
import type { APIService } from '../apimachinery/apiservice.js';
import { ResourceHandlers } from './handlers.js';
import { serveIssuerDiscovery, type IssuerDiscovery } from './openid-discovery.js';
import { OpenApiDocuments, serveOpenApi } from './openapi.js';
import { customResourceSource } from '../registry/apiextensions/custom-resource-def.js';
import { parseResourcePath } from './request-info.js';
import { MalformedRequestURI, requestPath } from './request-path.js';
import { answerClientError, writeGoProtocolError } from './go-http-errors.js';
import { connectHandler, serveUnknownMethod } from './unusual-methods.js';
import { RequestDrain } from './drain.js';
import { lingerAfterEarlyAnswer } from './linger.js';
import { isLongRunning } from './long-running.js';
import { checkObjectKey } from './path-segment.js';
import { IDLE_TIMEOUT_MS, MAX_HEADER_BYTES, READ_HEADER_TIMEOUT_MS, SHUTDOWN_TIMEOUT_MS } from './serving-limits.js';
import { addWarning, writeJSON, writeStatus, writeText } from './respond.js';
import { errors, StatusError } from '../apimachinery/errors.js';
import { servePodLog } from './pod-log.js';
import { matchNodeProxy, serveNodeProxy, type KubeletServers } from './node-proxy.js';
import { matchResourceProxy, serveResourceProxy } from './resource-proxy.js';
import { createUpgradeHandler, rejectPlainStreamRequest, type ContainerStreams } from './streaming/router.js';
import type { FlowControl } from '../flowcontrol/controller.js';
import { PriorityAndFairness, requestDigest } from './priority-and-fairness.js';
import type { AuthorizerWithRules } from '../authorization/types.js';
import { impersonate, ImpersonationRequestError } from './impersonation.js';
import { authorizeRequest, internalErrorText } from './authorization-filter.js';
import { auditHttpRequest } from './audit/http-audit.js';
import { requestAttributes } from './request-attributes.js';
import { storageUnavailableStatus } from './storage-unavailable.js';
import { UnavailableError } from '../storage/types.js';

export interface ApiServerOptions {
  store: Store;
  tls: { key: string; cert: string; ca: string };
  authenticator: Authenticator;
  /** host:port clients reach us at, for /api's serverAddressByClientCIDRs. */
  advertiseAddress: () => string;
  /** The service account issuer's OIDC discovery documents; absent: those paths are 404. */
  issuerDiscovery?: IssuerDiscovery;
  /** Whether the cluster finished bootstrapping (for /readyz). */
  ready: () => boolean;
  log?: (msg: string) => void;
  /** What the emulated containers wrote, for pods/log and pods/attach. */
  containerLogs?: ContainerLogReader;
  /** The kubelet side of pods/exec and pods/attach. */
  containerStreams?: ContainerStreams;
  /** winkube's own admin endpoints outside the Kubernetes paths (`/winkube/...`, e.g. node control). */
  winkubeRoutes?: (req: IncomingMessage, res: ServerResponse, path: string, user: User) => Promise<void>;
  /** The web view's page, bundle and endpoints below /ui/ (false: not one of its paths); asked before authentication. */
  ui?: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;
  /** How long a client may take to send its request headers (ReadHeaderTimeout); 32 s by default. */
  readHeaderTimeoutMs?: number;
  /** API Priority and Fairness: without it no request is ever queued or refused. */
  flowControl?: FlowControl;
  /** The kubelet servers nodes/NAME/proxy reaches; without them every kubelet is unreachable. */
  kubelets?: KubeletServers;
  /** --authorization-mode's authorizer; without it every authenticated request is allowed and Impersonate-* is ignored. */
  authorizer?: AuthorizerWithRules;
  /** How the aggregator reaches service-backed APIServices; without it their group versions answer "service unavailable". */
  aggregation?: AggregationTransport;
}

/** The aggregator's way to a service-backed APIService. */
export interface AggregationTransport {
  /** Serves one request by proxying it to the APIService's service, as `user`. */
  proxy(req: IncomingMessage, res: ServerResponse, apiService: APIService, user: User): Promise<void>;
  /** A GET of the aggregator's own (discovery) to the APIService's service. */
  get(apiService: APIService): ServiceGet;
  /** Serves an upgrade request (exec, port-forward of an extension API) on its connection, as `user`. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, apiService: APIService, user: User): Promise<void>;
}

export interface ApiServer extends Server {
  /** Graceful termination: stop accepting, finish the requests in flight (bounded), end watches. */
  drain(timeoutMs?: number): Promise<void>;
}

/** The HTTPS API server: authentication, discovery, OpenAPI and resource routes. */
export function createApiServer(opts: ApiServerOptions): ApiServer {
  const apiServices = APIServiceIndex.follow(opts.store, opts.log);
  // Rebuilt whenever the served resources (CustomResourceDefinitions established or removed), the APIServices or
  // what their services' discovery says change.
  const newDiscovery = () => new Discovery([...opts.store.defs], apiServices.listed(opts.store.defs), (gv) => remoteDiscovery.get(gv));
  const remoteDiscovery = new RemoteDiscovery(() => { discovery = newDiscovery(); });
  let discovery = newDiscovery();
  opts.store.onResourcesChanged(() => { discovery = newDiscovery(); });
  // The discovery manager refetches a service-backed APIService's discovery at each change of it.
  const fetchedAt = new Map<string, string>();
  apiServices.onChange(() => {
    const remote = apiServices.remote();
    const gvOf = (svc: APIService) => `${svc.spec!.group ?? ''}/${svc.spec!.version ?? ''}`;
    for (const gv of fetchedAt.keys()) {
      if (!remote.some((svc) => gvOf(svc) === gv)) { fetchedAt.delete(gv); remoteDiscovery.set(gv, undefined); }
    }
    for (const svc of remote) {
      const gv = gvOf(svc);
      if (!opts.aggregation || fetchedAt.get(gv) === svc.metadata.resourceVersion) continue;
      fetchedAt.set(gv, svc.metadata.resourceVersion!);
      remoteDiscovery.set(gv, { group: svc.spec!.group ?? '', version: svc.spec!.version ?? '', get: opts.aggregation.get(svc) });
    }
    discovery = newDiscovery();
  });
  const handlers = new ResourceHandlers(opts.store, opts.authenticator, opts.authorizer);
  const openapi = new OpenApiDocuments([...opts.store.defs]);
  // The apiextensions OpenAPI controllers' part: established CRDs' served versions in /openapi/v2 and v3
  // (those already served when the server starts too).
  const syncOpenApi = () => {
    const defs = [...opts.store.defs];
    openapi.setResources(defs, defs.flatMap((d) => customResourceSource(d) ?? []));
  };
  if (opts.store.defs.some((d) => customResourceSource(d))) syncOpenApi();
  opts.store.onResourcesChanged(syncOpenApi);

  const drain = new RequestDrain();
  const apf = opts.flowControl && new PriorityAndFairness(opts.flowControl, opts.store);

  const serve = async (req: IncomingMessage, res: ServerResponse, decodedPath: string): Promise<void> => {
    // Only the query is read from the WHATWG URL: its path would have dot segments resolved.
    const url = new URL((req.url ?? '/').replace(/^[^?]*/, '/'), 'https://localhost');
    const path = decodedPath.length > 1 ? decodedPath.replace(/\/+$/, '') : decodedPath;
    // The page and its bundle hold no cluster data; what the page reads carries the user's token.
    if (opts.ui && (decodedPath === '/ui' || decodedPath.startsWith('/ui/')) && await opts.ui(req, res, decodedPath)) return;
    const authenticated = await opts.authenticator.authenticate(req, (w) => addWarning(res, w));
    if (!authenticated) return writeStatus(res, errors.unauthorized().status);
    let user: User = authenticated;
    // WithAudit sits between authentication and impersonation: the event names the authenticated user.
    const audit = opts.store.audit && auditHttpRequest(opts.store.audit, req, res, requestAttributes(user, req.method ?? 'GET', decodedPath, url.searchParams));
    const authorizer = opts.authorizer;
    if (authorizer) {
      try {
        user = impersonate(req, user, authorizer);
        if (audit && user !== authenticated) audit.impersonated(user);
      } catch (e) {
        if (e instanceof ImpersonationRequestError) return writeText(res, 500, internalErrorText(req, e.message));
        if (e instanceof StatusError) res.setHeader('X-Content-Type-Options', 'nosniff');
        throw e;
      }
    }
    // Upstream's chain: authentication, impersonation, priority and fairness, then authorization.
    const authorizedRoute = async (): Promise<void> => {
      if (authorizer && !authorizeRequest(authorizer, req, res, user, decodedPath, url.searchParams, audit)) return;
      return route(req, res, url, path, user, decodedPath);
    };
    if (!apf) return authorizedRoute();
    return apf.serve(req, res, requestDigest(req.method ?? 'GET', path, url.searchParams, user), url.searchParams, authorizedRoute);
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL, path: string, user: User,
    decodedPath: string): Promise<void> => {
    switch (path) {
      case '/healthz': case '/livez': return writeText(res, 200, 'ok');
      case '/readyz': return opts.ready() ? writeText(res, 200, 'ok') : writeText(res, 500, '[-]winkube-bootstrap failed: not finished\nreadyz check failed\n');
      case '/version': return writeJSON(res, 200, versionInfo());
      case '/api':
      case '/apis': {
        const agg = aggregatedVersionWanted(req.headers.accept);
        if (agg) {
          const text = discovery.aggregated(path === '/api', agg);
          res.writeHead(200, {
            'Content-Type': `application/json;g=apidiscovery.k8s.io;v=${agg};as=APIGroupDiscoveryList`,
            'Content-Length': Buffer.byteLength(text), Vary: 'Accept',
          });
          res.end(text);
          return;
        }
        return writeJSON(res, 200, path === '/api' ? discovery.apiVersions(opts.advertiseAddress()) : discovery.apiGroupList());
      }
    }
    // Registered on the plain mux as exact paths: a trailing slash is not the same path.
    if (opts.issuerDiscovery && req.method === 'GET' && serveIssuerDiscovery(res, decodedPath, opts.issuerDiscovery)) return;
    if (path.startsWith('/openapi/')) return serveOpenApi(req, res, path, openapi);
    if (path.startsWith('/winkube/') && opts.winkubeRoutes) return opts.winkubeRoutes(req, res, path, user);
    const parts = path.split('/').filter(Boolean);
    const [root, second = '', third = ''] = parts;
    // The aggregator's proxy: everything below a service-backed APIService's group version goes to its service.
    const aggregated = root === 'apis' && parts.length >= 3 ? apiServices.get(`${third}.${second}`) : undefined;
    if (aggregated?.spec?.service) {
      if (url.searchParams.get('watch') === 'true' || parts[3] === 'watch') drain.markLongRunning(res);
      if (!opts.aggregation) return writeText(res, 503, 'service unavailable\n');
      return opts.aggregation.proxy(req, res, aggregated, user);
    }
    if (root === 'api' && parts.length === 2) {
      if (!discovery.hasGroupVersion('', second)) return writeText(res, 404, '404 page not found\n');
      return writeJSON(res, 200, discovery.resourceList('', second));
    }
    if (root === 'apis' && parts.length === 2) {
      if (!discovery.hasGroup(second)) return writeText(res, 404, '404 page not found\n');
      return writeJSON(res, 200, discovery.apiGroupDoc(second));
    }
    if (root === 'apis' && parts.length === 3) {
      if (!discovery.hasGroupVersion(second, third)) return writeText(res, 404, '404 page not found\n');
      return writeJSON(res, 200, discovery.resourceList(second, third));
    }
    // nodes/NAME/proxy/{path:*}: the proxied path keeps its trailing slash (the kubelet's /logs/ needs it).
    const nodeProxy = matchNodeProxy(decodedPath);
    if (nodeProxy) {
      drain.markLongRunning(res);
      return serveNodeProxy(req, res, opts.store, opts.kubelets ?? (() => undefined), nodeProxy.id, nodeProxy.path, url.searchParams);
    }
    // pods/NAME[:PORT]/proxy/{path:*} and services/...: the ids carry colons, the path its trailing slash.
    const resourceProxy = matchResourceProxy(decodedPath);
    if (resourceProxy) {
      drain.markLongRunning(res);
      return serveResourceProxy(req, res, opts.store, opts.store.podEndpoints, resourceProxy, (req.url ?? '').replace(/^[^?]*\??/, ''));
    }
    const info = parseResourcePath(path);
    if (!info) {
      // Below a served group version, go-restful's container answers (a 404 Status); elsewhere the mux's text.
      const served = (root === 'api' && parts.length >= 3 && discovery.hasGroupVersion('', second))
        || (root === 'apis' && parts.length >= 4 && discovery.hasGroupVersion(second, third));
      if (served) throw errors.notFoundGeneric();
      return writeText(res, 404, '404 page not found\n');
    }
    if (!discovery.hasGroupVersion(info.group, info.version)) return writeText(res, 404, '404 page not found\n');
    if (isLongRunning(info, url.searchParams)) drain.markLongRunning(res);
    const def = opts.store.find(info.group, info.version, info.resource);
    if (!def) throw errors.notFoundGeneric();
    if (def.group === '' && def.resource === 'pods' && info.name && ['log', 'exec', 'attach'].includes(info.subresource)) {
      // Their routes: log is a getter; exec and attach connect with GET and POST (ConnectMethods).
      const methods = info.subresource === 'log' ? ['GET'] : ['GET', 'POST'];
      if (!methods.includes(req.method ?? '')) throw errors.methodNotAllowed();
      checkObjectKey(def, info.namespace, info.name);
    }
    if (def.group === '' && def.resource === 'pods' && info.subresource === 'log' && info.name && opts.containerLogs) {
      return servePodLog(req, res, { store: opts.store, def, namespace: info.namespace, name: info.name, url, logs: opts.containerLogs });
    }
    if (def.group === '' && def.resource === 'pods' && info.name && (info.subresource === 'exec' || info.subresource === 'attach')) {
      return rejectPlainStreamRequest(opts.store, info.namespace, info.name, url);
    }
    await handlers.handle(req, res, info, url, def, user);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    drain.track(res);
    lingerAfterEarlyAnswer(req, res);
    let path: string;
    try {
      path = requestPath(req.url ?? '/');
    } catch (e) {
      // Go's server cannot parse the request line (url.ParseRequestURI) and answers it itself.
      if (e instanceof MalformedRequestURI) { writeGoProtocolError(req.socket, 400); return; }
      throw e;
    }
    serve(req, res, path).catch((e: unknown) => {
      if (res.headersSent) { res.destroy(); return; }
      if (e instanceof StatusError) return writeStatus(res, e.status);
      if (e instanceof UnavailableError) return writeStatus(res, storageUnavailableStatus(req.method));
      opts.log?.(`internal error on ${req.method} ${req.url}: ${(e as Error).stack ?? String(e)}`);
      writeStatus(res, errors.internal((e as Error).message ?? String(e)).status);
    });
  };

  const headersTimeout = opts.readHeaderTimeoutMs ?? READ_HEADER_TIMEOUT_MS;
  const server = createHttpsServer({
    ServerResponse: drain.Response,
    key: opts.tls.key, cert: opts.tls.cert, ca: opts.tls.ca,
    requestCert: true, rejectUnauthorized: false,
    keepAliveTimeout: IDLE_TIMEOUT_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
    // Only the headers have a deadline (Go's ReadTimeout is unset): bodies, watches and streams do not.
    requestTimeout: 0,
    headersTimeout,
    // Node checks the deadline at this interval; a fraction of it keeps the cut close to the deadline.
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  }, handle);
  server.on('connect', connectHandler(handle));
  server.on('clientError', (err: Error & { code?: string; rawPacket?: Buffer }, socket) => {
    if (err.code === 'HPE_INVALID_METHOD' && serveUnknownMethod(handle, err.rawPacket, socket)) return;
    answerClientError(err, socket);
  });
  // pods/exec and pods/attach switch protocols (WebSocket or SPDY/3.1).
  server.on('upgrade', createUpgradeHandler({
    store: opts.store, authenticator: opts.authenticator, authorizer: opts.authorizer, containerStreams: opts.containerStreams, log: opts.log,
    ...(opts.containerLogs ? { containerLogs: opts.containerLogs } : {}),
    // Upgrades below a service-backed APIService's group version go to its service, as other requests do.
    aggregated: (path) => {
      const [root, group = '', version = ''] = path.split('/').filter(Boolean);
      const svc = root === 'apis' && version ? apiServices.get(`${version}.${group}`) : undefined;
      return svc?.spec?.service ? svc : undefined;
    },
    aggregation: opts.aggregation,
  }));
  return Object.assign(server, {
    drain: (timeoutMs = SHUTDOWN_TIMEOUT_MS) => { remoteDiscovery.stop(); return drain.drain(server, timeoutMs); },
  });
}

export type { Server };
