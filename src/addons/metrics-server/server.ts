/**
 * metrics-server's process: an HTTPS API server for metrics.k8s.io that the
 * aggregator reaches (authenticated by its front-proxy client certificate,
 * the user named in X-Remote-User, as the requestheader authenticator of
 * `extension-apiserver-authentication` accepts it), and the scraper that
 * reads every node's kubelet `/metrics/resource` each metric resolution
 * (15 s by default), the first time at start.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { KObject } from '../../apimachinery/object.js';
import type { PemPair } from '../../pki/certificates.js';
import { errors } from '../../apimachinery/errors.js';
import { decodeBatch, decodeFamilies, mergeBatches, type MetricsBatch } from './decode.js';
import type { MetricFamily } from '../../exposition/prometheus-text.js';
import { serveMetricsAPI, type MetricsSource } from './api.js';
import { MetricsStorage } from './storage.js';

/** metrics-server's --metric-resolution default. */
export const DEFAULT_METRIC_RESOLUTION_MS = 15_000;
/** --authorization-always-allow-paths of its manifests' defaults. */
const ALWAYS_ALLOW = new Set(['/healthz', '/readyz', '/livez']);

export interface MetricsServerOptions {
  serving: PemPair;
  /** The front-proxy CA (requestheader-client-ca-file) and the names it may present. */
  requestHeaderCA: string;
  allowedNames: readonly string[];
  bindAddress: string;
  /** The node and pod listers (informer caches). */
  nodes(): KObject[];
  pods(namespace: string): KObject[];
  /**
   * GET https://<node>:<kubelet port>/metrics/resource: its text, or its samples when the kubelet runs in
   * this process (the same batch without printing and parsing 50,000 pods' lines); undefined when it does not answer.
   */
  scrape(nodeName: string, now: Date): Promise<string | readonly MetricFamily[] | undefined>;
  metricResolutionMs?: number;
  log(message: string): void;
}

export interface RunningMetricsServer { port: number; stop(): Promise<void> }

/** The requestheader authenticator: a front-proxy client certificate with an allowed name, then the header's user. */
function remoteUser(req: IncomingMessage, allowedNames: readonly string[]): string | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const cn = socket.getPeerCertificate()?.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (allowedNames.length && (!name || !allowedNames.includes(name))) return undefined;
  const user = req.headers['x-remote-user'];
  return typeof user === 'string' && user ? user : undefined;
}

/** Kubelets scraped at once: enough to overlap slow ones, few enough that one round's samples are not all alive together. */
const SCRAPE_CONCURRENCY = 32;

/** One scrape of every node (the scraper's Scrape): their batches merged; a kubelet that fails is logged and left out. */
export async function scrapeNodes(names: readonly string[], scrape: MetricsServerOptions['scrape'], scrapeTime: number,
  log: (message: string) => void): Promise<MetricsBatch> {
  const batches: MetricsBatch[] = [];
  const one = async (name: string) => {
    try {
      const answer = await scrape(name, new Date(scrapeTime));
      if (answer === undefined) return;
      batches.push(typeof answer === 'string' ? decodeBatch(answer, scrapeTime, name) : decodeFamilies(answer, scrapeTime, name));
    } catch (e) {
      log(`metrics-server: Failed to scrape node node="${name}" err="${(e as Error).message}"`);
    }
  };
  for (let i = 0; i < names.length; i += SCRAPE_CONCURRENCY) await Promise.all(names.slice(i, i + SCRAPE_CONCURRENCY).map(one));
  return mergeBatches(batches);
}

export async function startMetricsServer(opts: MetricsServerOptions): Promise<RunningMetricsServer> {
  const resolution = opts.metricResolutionMs ?? DEFAULT_METRIC_RESOLUTION_MS;
  const storage = new MetricsStorage(resolution);
  const source: MetricsSource = { nodes: () => opts.nodes(), pods: (ns) => opts.pods(ns), storage };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'https://metrics-server');
    if (!ALWAYS_ALLOW.has(url.pathname) && !remoteUser(req, opts.allowedNames)) {
      // Anonymous: authorization refuses it, as the delegated authorizer does for system:anonymous.
      const denied = errors.forbidden({ group: '', resource: '' }, '', `User "system:anonymous" cannot get path "${url.pathname}"`);
      res.writeHead(403, { 'Content-Type': 'application/json' }).end(JSON.stringify(denied.status));
      return;
    }
    const answer = serveMetricsAPI(req.method ?? 'GET', url.pathname, url.searchParams, source, new Date(), req.headers.accept);
    res.writeHead(answer.status, { 'Content-Type': answer.contentType }).end(answer.body);
  };
  const server: Server = createServer({
    key: opts.serving.key, cert: opts.serving.cert,
    ca: opts.requestHeaderCA, requestCert: true, rejectUnauthorized: false,
  }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.bindAddress, () => resolve());
  });

  let stopped = false;
  let running: Promise<void> | undefined;
  const tick = async () => {
    const batch = await scrapeNodes(opts.nodes().map((n) => n.metadata.name ?? ''), (name, now) => opts.scrape(name, now), Date.now(), (m) => opts.log(m));
    if (!stopped) storage.store(batch);
  };
  const scrape = () => { if (!stopped && !running) running = tick().finally(() => { running = undefined; }); };
  scrape();
  const timer = setInterval(scrape, resolution);
  timer.unref();
  return {
    port: (server.address() as AddressInfo).port,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
