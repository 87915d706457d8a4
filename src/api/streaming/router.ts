import type { IncomingMessage } from 'node:http';
import type { Authorizer } from '../../authorization/types.js';
import { forbiddenError } from '../../authorization/forbidden.js';
import { impersonate } from '../impersonation.js';
import { annotateDecision, internalErrorText } from '../authorization-filter.js';
import { auditUpgradeRequest } from '../audit/http-audit.js';
import { requestAttributes } from '../request-attributes.js';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { KObject } from '../../apimachinery/object.js';
import type { APIService } from '../../apimachinery/apiservice.js';
import type { AggregationTransport } from '../server.js';
import { pods } from '../../registry/core/pods.js';
import type { Store } from '../../registry/store.js';
import type { Authenticator } from '../auth.js';
import { parseResourcePath } from '../request-info.js';
import { requestPath } from '../request-path.js';
import { writeGoProtocolError } from '../go-http-errors.js';
import { checkObjectKey } from '../path-segment.js';
import { errors, StatusError } from '../../apimachinery/errors.js';
import { chooseChannelProtocol } from './channels.js';
import { containerStatus, validateContainer } from './container-name.js';
import {
  acceptSpdyUpgrade, headerValues, isSpdyUpgrade, isWebSocketUpgrade, negotiateProtocol, PROTOCOL_HEADER,
  writeRawError, writeRawResponse, writeRawStatus,
} from './handshake.js';
import { internalErrorStatus, type RemoteCommandConnection, type StreamOptions } from '../../apimachinery/remotecommand.js';
import { parseStreamOptions } from './remotecommand.js';
import { admitConnect } from './connect-admission.js';
import { acceptSpdyStreams, SPDY_REMOTECOMMAND_PROTOCOLS } from './spdy-connection.js';
import { webSocketConnection } from './ws-connection.js';
import { PORT_FORWARD_PROTOCOL, servePortForwardSpdy } from './portforward-spdy.js';
import type { PortForwardTarget } from '../../apimachinery/port-forward.js';
import { upgradeTunnel } from './spdy-tunnel.js';
import { serveLogWebSocket } from './log-websocket.js';
import type { ContainerLogReader } from '../../apimachinery/container-log.js';

/**
 * The kubelet's half of exec and attach: what runs on the upgraded
 * connection once the API server's checks have passed (upstream proxies the
 * stream to the node's kubelet; here the node's runtime takes it in process).
 */
export interface ContainerStreams {
  /** Runs the command in the container's shell (its env, hostname, files and its node's OS). */
  exec(conn: RemoteCommandConnection, command: string[], pod: KObject, container: string, node: KObject | undefined): Promise<void>;
  /** Streams the running container instance's output until it exits or the client leaves. */
  attach(conn: RemoteCommandConnection, pod: KObject, container: string, restartCount: number): void;
  /** The pod's network namespace as port-forward reaches it; a string is the runtime's refusal. */
  portForward?(pod: KObject, node: KObject | undefined): PortForwardTarget | string;
}

export interface StreamingOptions {
  store: Store;
  authenticator: Authenticator;
  /** Without it every authenticated user may exec and attach. */
  authorizer?: Authorizer;
  containerStreams?: ContainerStreams;
  log?: (msg: string) => void;
  /** The service-backed APIService a path belongs to, if any. */
  aggregated?: (path: string) => APIService | undefined;
  /** How the aggregator reaches it; without it such an upgrade answers "service unavailable". */
  aggregation?: AggregationTransport;
  /** The containers' logs, for pods/log asked over a WebSocket. */
  containerLogs?: ContainerLogReader;
}

/**
 * The HTTP upgrade half of the API server: pods/exec and pods/attach over
 * WebSocket (channel protocols, v5 for kubectl ≥ 1.30) or SPDY/3.1 (kubectl
 * 1.27–1.29 and the 1.30+ fallback). Everything before the upgrade answers
 * as upstream does: the API server's own checks as Status objects
 * (ExecLocation/AttachLocation), then the kubelet's as plain text.
 */
export function createUpgradeHandler(opts: StreamingOptions): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  // The subprotocol the handshake answers with, per request (a channel protocol, or pods/log's reader protocol).
  const chosen = new WeakMap<IncomingMessage, { name: string }>();
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (_offered, req) => chosen.get(req)?.name || false,
  });
  return (req, socket, head) => {
    socket.on('error', () => socket.destroy());
    serve(req, socket, head, opts, wss, chosen).catch((e: unknown) => {
      if (e instanceof StatusError) return writeRawStatus(socket, e.status);
      opts.log?.(`internal error on upgrade ${req.method} ${req.url}: ${(e as Error).stack ?? String(e)}`);
      writeRawStatus(socket, errors.internal((e as Error).message ?? String(e)).status);
    });
  };
}

async function serve(req: IncomingMessage, socket: Duplex, head: Buffer, opts: StreamingOptions,
  wss: WebSocketServer, chosen: WeakMap<IncomingMessage, { name: string }>): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://localhost');
  let path: string;
  try { path = requestPath(req.url ?? '/'); } catch { return writeGoProtocolError(socket, 400); }
  const info = parseResourcePath(path);
  const authenticated = await opts.authenticator.authenticate(req);
  if (!authenticated) throw errors.unauthorized();
  let user = authenticated;
  // As on every request, the event names the authenticated user, begun before impersonation.
  const audit = opts.store.audit && auditUpgradeRequest(opts.store.audit, req, socket, requestAttributes(user, req.method ?? 'GET', path, url.searchParams));
  if (opts.authorizer) {
    // Through the same filters as every request: impersonation, then authorization (a GET upgrade is the verb get).
    user = impersonate(req, authenticated, opts.authorizer);
    if (audit && user !== authenticated) audit.impersonated(user);
    const attrs = requestAttributes(user, req.method ?? 'GET', path, url.searchParams);
    const d = opts.authorizer.authorize(attrs);
    if (d.decision !== 'Allow' && d.error) {
      audit?.annotate('authorization.k8s.io/reason', 'internal error');
      return writeRawError(socket, 500, internalErrorText(req, d.error));
    }
    annotateDecision(audit, d.decision === 'Allow', d.reason);
    if (d.decision !== 'Allow') {
      return writeRawResponse(socket, 403, JSON.stringify(forbiddenError(attrs, d.reason).status), 'application/json', { 'X-Content-Type-Options': 'nosniff' });
    }
  }
  const apiService = opts.aggregated?.(path);
  if (apiService) {
    if (!opts.aggregation?.upgrade) return writeRawError(socket, 503, 'service unavailable', true);
    return opts.aggregation.upgrade(req, socket, head, apiService, user);
  }
  const sub = info?.subresource;
  if (info && info.group === '' && info.version === 'v1' && info.resource === 'pods' && info.name && sub === 'log' && opts.containerLogs && isWebSocketUpgrade(req)) {
    checkObjectKey(pods, info.namespace, info.name);
    return serveLogWebSocket(req, socket, head, wss, (p) => chosen.set(req, p),
      { store: opts.store, namespace: info.namespace, name: info.name, url, logs: opts.containerLogs });
  }
  if (!info || info.group !== '' || info.version !== 'v1' || info.resource !== 'pods' || !info.name ||
    (sub !== 'exec' && sub !== 'attach' && sub !== 'portforward')) {
    throw errors.notFoundGeneric();
  }
  checkObjectKey(pods, info.namespace, info.name);
  if (sub === 'portforward') return servePortForward(req, socket, head, opts, info.namespace, info.name, url.searchParams, user);
  const q = await admitConnect(opts.store, sub, info.namespace, info.name, url.searchParams, user);
  const pod = await opts.store.read(pods, info.namespace, info.name);
  const container = validateContainer(q.get('container') ?? '', pod);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw errors.badRequest(`pod ${info.name} does not have a host assigned`);

  // From here on the kubelet answers (its errors travel back as text).
  const options = parseStreamOptions(q);
  if ('error' in options) return writeRawError(socket, 400, options.error);
  const status = containerStatus(pod, container);
  if (!status?.state?.running) {
    return writeRawError(socket, 500, sub === 'exec'
      ? `container not found (${JSON.stringify(container)})`
      : `container ${container} not found in pod ${info.name}_${info.namespace}`);
  }

  const start = async (conn: RemoteCommandConnection) => {
    try {
      if (sub === 'exec') {
        if (!opts.containerStreams) throw new Error('this node cannot run commands');
        const node = await opts.store.get('', 'nodes', '', nodeName);
        await opts.containerStreams.exec(conn, q.getAll('command'), pod, container, node);
      } else {
        if (!opts.containerStreams) throw new Error('this node cannot attach to containers');
        opts.containerStreams.attach(conn, pod, container, status.restartCount ?? 0);
      }
    } catch (e) {
      const what = sub === 'exec' ? 'error executing command in container' : 'error attaching to container';
      conn.finish(internalErrorStatus(`${what}: ${(e as Error).message}`));
    }
  };

  if (isWebSocketUpgrade(req)) return upgradeWebSocket(req, socket, head, wss, chosen, options, start);
  if (isSpdyUpgrade(req)) return upgradeSpdy(req, socket, head, options, start, opts.log);
  writeRawError(socket, 400, 'Upgrade request required', true);
}

/**
 * pods/portforward (PortForwardLocation, then the kubelet's
 * ServePortForward): SPDY/3.1 with portforward.k8s.io, or the same SPDY
 * connection tunneled over a WebSocket (kubectl ≥ 1.31, PortForwardWebsockets).
 */
async function servePortForward(req: IncomingMessage, socket: Duplex, head: Buffer, opts: StreamingOptions,
  namespace: string, name: string, query: URLSearchParams, user: Parameters<typeof admitConnect>[5]): Promise<void> {
  await admitConnect(opts.store, 'portforward', namespace, name, query, user);
  const pod = await opts.store.read(pods, namespace, name);
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
  // The kubelet: a pod it does not run has no sandbox to forward into.
  if ((pod.status as { phase?: string } | undefined)?.phase !== 'Running' || !opts.containerStreams?.portForward) {
    return writeRawError(socket, 404, `pod not found (${JSON.stringify(`${name}_${namespace}`)})`);
  }
  const node = await opts.store.get('', 'nodes', '', nodeName);
  const target = opts.containerStreams.portForward(pod, node);
  if (typeof target === 'string') return writeRawError(socket, 500, target);
  if (isWebSocketUpgrade(req)) {
    return upgradeTunnel(req, socket, head, (tunnel) => { servePortForwardSpdy(tunnel, Buffer.alloc(0), target); });
  }
  if (!isSpdyUpgrade(req)) return writeRawError(socket, 400, 'Upgrade request required', true);
  const offered = headerValues(req, PROTOCOL_HEADER);
  const protocol = negotiateProtocol(offered, [PORT_FORWARD_PROTOCOL]);
  if (!protocol) {
    return writeRawResponse(socket, 403,
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${PORT_FORWARD_PROTOCOL}]\n`,
      'text/plain; charset=utf-8', { 'X-Accepted-Stream-Protocol-Versions': PORT_FORWARD_PROTOCOL });
  }
  acceptSpdyUpgrade(socket, protocol);
  servePortForwardSpdy(socket, head, target);
}

function upgradeWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, wss: WebSocketServer,
  chosen: WeakMap<IncomingMessage, { name: string }>, options: StreamOptions, start: (c: RemoteCommandConnection) => Promise<void>): void {
  const protocol = chooseChannelProtocol(headerValues(req, 'sec-websocket-protocol'));
  // x/net/websocket answers a failed subprotocol handshake with a bare 403.
  if (!protocol) return writeRawResponse(socket, 403, '', 'text/plain; charset=utf-8');
  chosen.set(req, protocol);
  wss.handleUpgrade(req, socket, head, (ws) => { void start(webSocketConnection(ws, protocol, options)); });
}

async function upgradeSpdy(req: IncomingMessage, socket: Duplex, head: Buffer, options: StreamOptions,
  start: (c: RemoteCommandConnection) => Promise<void>, log?: (m: string) => void): Promise<void> {
  const offered = headerValues(req, PROTOCOL_HEADER);
  if (offered.length === 0) return writeRawError(socket, 400, 'unable to upgrade: X-Stream-Protocol-Version is required', true);
  const protocol = negotiateProtocol(offered, SPDY_REMOTECOMMAND_PROTOCOLS);
  if (!protocol) {
    // httpstream.Handshake: 403 listing what the server accepts.
    return writeRawResponse(socket, 403,
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${SPDY_REMOTECOMMAND_PROTOCOLS.join(' ')}]\n`,
      'text/plain; charset=utf-8', { 'X-Accepted-Stream-Protocol-Versions': SPDY_REMOTECOMMAND_PROTOCOLS.join(', ') });
  }
  acceptSpdyUpgrade(socket, protocol);
  let conn: RemoteCommandConnection;
  try {
    conn = await acceptSpdyStreams(socket, head, protocol, options);
  } catch (e) {
    log?.(`exec/attach over SPDY: ${(e as Error).message}`);
    return;
  }
  await start(conn);
}

/**
 * pods/exec or pods/attach without an upgrade: ExecLocation/AttachLocation
 * still check the pod and container first, then the upgrade-aware proxy
 * refuses the plain request.
 */
export async function rejectPlainStreamRequest(store: Store, namespace: string, name: string, url: URL): Promise<never> {
  const pod = await store.read(pods, namespace, name);
  validateContainer(url.searchParams.get('container') ?? '', pod);
  if (!pod.spec?.nodeName) throw errors.badRequest(`pod ${name} does not have a host assigned`);
  throw errors.badRequest('Upgrade request required');
}
