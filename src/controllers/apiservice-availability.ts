/**
 * kube-aggregator's remote availability controller (pkg/controllers/status/remote,
 * remote_available_controller.go, v0.32): the Available condition of every APIService backed
 * by a Service. It checks the Service exists, that a ClusterIP Service listens on the port and
 * has an endpoint address with that port's name, then GETs the group version's discovery
 * document (five attempts at once; one success is enough) as system:kube-aggregator in
 * system:masters, with the front-proxy client certificate, without verifying the server, five
 * seconds each. A failed check is written and the APIService checked again with back-off
 * (5 ms doubling to 30 s); every APIService is checked again every 30 s (its informer's resync).
 * The status is written only when it changed, the transition time only when the status did.
 *
 * Messages name the Service's cluster address (https://<clusterIP>:<port>/...), as kube-apiserver
 * routes to it by default; the request itself goes to an endpoint (network/service-cluster-address).
 * Upstream runs it inside kube-apiserver: it acts through the API server's loopback client.
 * An endpoint that is an emulated pod is checked through the cluster network model
 * (network/pod-endpoint-dial.ts), with the same unverified TLS.
 */
import https from 'node:https';
import { goNetError } from '../admission/webhook-client.js';
import { setAPIServiceCondition, type APIService, type APIServiceCondition } from '../apimachinery/apiservice.js';
import type { KObject } from '../apimachinery/object.js';
import { goQuote } from '../apimachinery/go-quote.js';
import { isNotFound } from '../apimachinery/errors.js';
import type { SharedInformer } from '../client/shared-informer.js';
import { apiservices, endpoints, services } from '../client/resources.js';
import { plain } from '../client/plain.js';
import { ItemExponentialFailureRateLimiter } from '../client/rate-limiter.js';
import type { ResourceClient } from '../client/types.js';
import { RateLimitingQueue } from '../client/work-queue.js';
import type { TimerHandle } from '../apimachinery/clock.js';
import { KUBE_AGGREGATOR_USER, setAuthProxyHeaders, type HeaderLines } from '../network/auth-proxy-headers.js';
import { dialTarget, resolveClusterAddress, resolverErrorText } from '../network/service-cluster-address.js';
import type { ObjectGetter } from '../network/service-endpoint.js';
import type { PemPair } from '../pki/certificates.js';
import { httpsExchange, type PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import { isDeepStrictEqual } from 'node:util';
import type { ControllerContext } from './runtime/controller-context.js';

const ATTEMPTS = 5;
const DISCOVERY_TIMEOUT_MS = 5000;
const RESYNC_MS = 30_000;

export interface APIServiceAvailabilityOptions {
  /** The front-proxy client certificate, presented to the backends. */
  proxyClient: PemPair;
  /** The informer resync that rechecks every APIService (30 s). */
  resyncMs?: number;
  /** How endpoints that are emulated pods are reached; absent or undefined: real sockets only. */
  podEndpoints?: () => PodEndpointDialer | undefined;
}

interface ServiceShape { spec?: { type?: string; ports?: { name?: string; port?: number }[] } }
interface EndpointsShape { subsets?: { addresses?: unknown[]; ports?: { name?: string }[] }[] }

/** The discovery check's failure, worded as Go's http.Client and the controller word it. */
class CheckFailure extends Error {}

export class APIServiceAvailabilityController {
  private readonly apiServices: ResourceClient<KObject>;
  private readonly queue: RateLimitingQueue;
  private apiServiceInformer?: SharedInformer;
  private serviceInformer?: SharedInformer;
  private endpointsInformer?: SharedInformer;
  /** rebuildAPIServiceCache: the APIServices of each Service, by namespace/name. */
  private byService = new Map<string, string[]>();
  private resync?: TimerHandle;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, private readonly opts: APIServiceAvailabilityOptions) {
    this.apiServices = ctx.client.resource(plain(apiservices));
    this.queue = new RateLimitingQueue({ clock: ctx.clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 30_000) });
  }

  async start(): Promise<void> {
    this.apiServiceInformer = await this.ctx.informers.inform(apiservices, (type, obj, old) => {
      const spec = (obj as APIService).spec;
      if (type !== 'MODIFIED' ? spec?.service : !isDeepStrictEqual(spec?.service, (old as APIService | undefined)?.spec?.service)) this.rebuildCache();
      this.queue.add(obj.metadata.name!);
    });
    const byObject = (_type: string, obj: KObject) => {
      for (const name of this.byService.get(`${obj.metadata.namespace}/${obj.metadata.name}`) ?? []) this.queue.add(name);
    };
    this.serviceInformer = await this.ctx.informers.inform(services, byObject);
    this.endpointsInformer = await this.ctx.informers.inform(endpoints, byObject);
    this.rebuildCache();
    this.resyncAll();
    // Upstream runs five workers.
    this.queue.run(5, (k) => this.sync(k), (k, e) => this.ctx.log(`RemoteAvailability: ${k} failed with: ${(e as Error).message}`));
  }

  stop(): void {
    this.stopped = true;
    this.resync?.cancel();
    this.queue.shutDown();
  }

  private resyncAll(): void {
    if (this.stopped) return;
    for (const s of this.apiServiceInformer?.cache.list('') ?? []) this.queue.add(s.metadata.name!);
    this.resync = this.ctx.clock.after(this.opts.resyncMs ?? RESYNC_MS, () => this.resyncAll());
  }

  private rebuildCache(): void {
    const next = new Map<string, string[]>();
    for (const s of (this.apiServiceInformer?.cache.list('') ?? []) as APIService[]) {
      const svc = s.spec?.service;
      if (!svc) continue;
      const key = `${svc.namespace}/${svc.name}`;
      next.set(key, [...(next.get(key) ?? []), s.metadata!.name!]);
    }
    this.byService = next;
  }

  /** Services and Endpoints as the informers hold them. */
  private readonly lookup: ObjectGetter = async (resource, namespace, name) =>
    (resource === 'services' ? this.serviceInformer : this.endpointsInformer)?.cache.get(namespace, name);

  async sync(name: string): Promise<void> {
    const original = this.apiServiceInformer?.cache.get('', name) as (KObject & APIService) | undefined;
    if (!original) return;
    const svc = original.spec?.service;
    // Local APIServices are the local availability controller's.
    if (!svc) return;
    const apiService = structuredClone(original);
    const namespace = svc.namespace ?? ''; const svcName = svc.name ?? ''; const port = svc.port ?? 443;
    const now = new Date(this.ctx.clock.now()).toISOString().replace(/\.\d+Z$/, 'Z');
    const write = async (status: APIServiceCondition['status'], reason: string, message: string) => {
      setAPIServiceCondition(apiService, { type: 'Available', status, lastTransitionTime: now, reason, message });
      await this.updateStatus(original, apiService);
    };

    const service = this.serviceInformer?.cache.get(namespace, svcName) as (KObject & ServiceShape) | undefined;
    if (!service) return write('False', 'ServiceNotFound', `service/${svcName} in ${goQuote(namespace)} is not present`);
    if ((service.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
      if (!servicePort) return write('False', 'ServicePortError', `service/${svcName} in ${goQuote(namespace)} is not listening on port ${port}`);
      const portName = servicePort.name ?? '';
      const eps = this.endpointsInformer?.cache.get(namespace, svcName) as (KObject & EndpointsShape) | undefined;
      if (!eps) return write('False', 'EndpointsNotFound', `cannot find endpoints for service/${svcName} in ${goQuote(namespace)}`);
      const active = (eps.subsets ?? []).some((s) => (s.addresses?.length ?? 0) > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!active) return write('False', 'MissingEndpoints', `endpoints for service/${svcName} in ${goQuote(namespace)} have no addresses with port name ${goQuote(portName)}`);
    }

    const results = await Promise.all(Array.from({ length: ATTEMPTS }, () => this.checkDiscovery(original, namespace, svcName, port)));
    // The results in the order they came; the last one is reported when none succeeded.
    const lastError = results.includes(undefined) ? undefined : results.at(-1);
    if (lastError) {
      await write('False', 'FailedDiscoveryCheck', lastError);
      // Requeued with back-off, besides the changes and the resync that bring it back.
      throw new CheckFailure(lastError);
    }
    return write('True', 'Passed', 'all checks passed');
  }

  /** One attempt: undefined when the discovery document answered 2xx, else the error text. */
  private async checkDiscovery(apiService: APIService, namespace: string, name: string, port: number): Promise<string | undefined> {
    let address;
    try {
      address = await resolveClusterAddress(this.lookup, namespace, name, port);
    } catch (e) {
      return resolverErrorText(e);
    }
    const path = apiService.metadata?.name === 'v1.' ? `/api/${apiService.spec?.version ?? ''}` : `/apis/${apiService.spec?.group ?? ''}/${apiService.spec?.version ?? ''}`;
    const url = `https://${address.hostPort}${path}`;
    const failing = (why: string) => `failing or missing response from ${url}: ${why}`;
    const colon = address.hostPort.lastIndexOf(':');
    const printedHost = address.hostPort.slice(0, colon).replace(/^\[|\]$/g, '');
    const target = await dialTarget(this.lookup, address, namespace, name, port);
    if (!target) return failing(`Get ${goQuote(url)}: dial tcp ${address.hostPort}: connect: connection refused`);
    const headers: HeaderLines = new Map();
    setAuthProxyHeaders(headers, KUBE_AGGREGATOR_USER);
    const modelled = this.opts.podEndpoints?.()?.dial(target.host, target.port);
    if (modelled) {
      if (modelled.kind === 'refused') return failing(`Get ${goQuote(url)}: dial tcp ${address.hostPort}: connect: connection refused`);
      const timedOut = failing(`Get ${goQuote(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
      if (modelled.kind === 'timeout') return new Promise((resolve) => this.ctx.clock.after(DISCOVERY_TIMEOUT_MS, () => resolve(timedOut)));
      const request = {
        method: 'GET', target: path, body: new Uint8Array(),
        headers: [['Host', address.hostPort], ['User-Agent', 'Go-http-client/1.1'], ...[...headers].flatMap(([k, vs]) => vs.map((v) => [k, v])), ['Accept-Encoding', 'gzip']] as [string, string][],
      };
      const outcome = await Promise.race([
        httpsExchange(modelled, target.host, target.port, { caBundle: '', serverName: printedHost, insecure: true }, request, new Date(this.ctx.clock.now())),
        new Promise<'deadline'>((resolve) => this.ctx.clock.after(DISCOVERY_TIMEOUT_MS, () => resolve('deadline'))),
      ]);
      if (outcome === 'deadline' || outcome.kind === 'unanswered') return timedOut;
      if (outcome.kind === 'failed') return failing(`Get ${goQuote(url)}: ${outcome.reason}`);
      const code = outcome.response.status;
      return code < 200 || code >= 300 ? failing(`bad status from ${url}: ${code}`) : undefined;
    }
    return new Promise((resolve) => {
      const req = https.request({
        host: target.host, port: target.port, method: 'GET', path, agent: false, rejectUnauthorized: false,
        cert: this.opts.proxyClient.cert, key: this.opts.proxyClient.key,
        headers: { ...Object.fromEntries([...headers].map(([k, v]) => [k, v.length === 1 ? v[0] : v])), host: address.hostPort, 'user-agent': 'Go-http-client/1.1', 'accept-encoding': 'gzip' },
      }, (res) => {
        res.resume();
        clearTimeout(timer);
        const code = res.statusCode ?? 0;
        resolve(code < 200 || code >= 300 ? failing(`bad status from ${url}: ${code}`) : undefined);
      });
      // http.Client.Timeout
      const timer = setTimeout(() => {
        req.destroy();
        resolve(failing(`Get ${goQuote(url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`));
      }, DISCOVERY_TIMEOUT_MS);
      req.on('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve(failing(`Get ${goQuote(url)}: ${goNetError(e, printedHost, port, printedHost)}`));
      });
      req.end();
    });
  }

  /** updateAPIServiceStatus: written only when the status changed, as the lister saw it (a conflict requeues). */
  private async updateStatus(original: KObject & APIService, updated: KObject & APIService): Promise<void> {
    if (isDeepStrictEqual(original.status ?? {}, updated.status ?? {})) return;
    try {
      await this.apiServices.updateStatus('', original.metadata.name!, () => updated as KObject);
    } catch (e) {
      // Deleted meanwhile: nothing is left to report on.
      if (!isNotFound(e)) throw e;
    }
  }
}
