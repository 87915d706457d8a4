/**
 * The ConfigMap kube-system/extension-apiserver-authentication that kube-apiserver publishes
 * (kubernetes pkg/controlplane/controller/clusterauthenticationtrust, v1.32): how an extension
 * API server (one started with --authentication-kubeconfig) learns which client certificates
 * the cluster issues and which front proxy it may believe. The values are kube-apiserver's
 * flags as kubeadm sets them: --client-ca-file the cluster CA, --requestheader-client-ca-file
 * the front-proxy CA, --requestheader-allowed-names=front-proxy-client and the X-Remote-*
 * headers; --requestheader-uid-headers is not set (RemoteRequestHeaderUID is off), so that key
 * holds `[]`.
 *
 * What the ConfigMap already holds is kept alongside (the certificates of both, the expired
 * ones left out, and the header names of both, without repeats), as several API servers of a
 * cluster each add theirs. It is written at start and again whenever it changes, and checked
 * every minute.
 */
import { X509Certificate } from 'node:crypto';
import type { KObject } from '../apimachinery/object.js';
import type { TimerHandle } from '../apimachinery/clock.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/errors.js';
import { configmaps } from '../client/resources.js';
import { plain } from '../client/plain.js';
import type { RateLimitingQueue } from '../client/work-queue.js';
import { newQueue, type ControllerContext } from '../controllers/runtime/controller-context.js';
import type { ClusterPki } from '../pki/certificates.js';
import { semanticEqual } from '../registry/groups/shared.js';

export const AUTHENTICATION_CONFIGMAP_NAMESPACE = 'kube-system';
export const AUTHENTICATION_CONFIGMAP_NAME = 'extension-apiserver-authentication';
const RECHECK_MS = 60_000;
/** filterExpiredCerts allows five minutes of slack. */
const EXPIRY_SLACK_MS = 5 * 60_000;

/** ClusterAuthenticationInfo */
export interface ClusterAuthenticationInfo {
  /** PEM bundles; empty when unset. */
  clientCA: string;
  requestHeaderCA: string;
  usernameHeaders: string[];
  uidHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
  allowedNames: string[];
}

/** kube-apiserver's authentication flags as kubeadm writes them. */
export function kubeadmAuthenticationInfo(pki: Pick<ClusterPki, 'ca' | 'frontProxyCA'>): ClusterAuthenticationInfo {
  return {
    clientCA: pki.ca.cert, requestHeaderCA: pki.frontProxyCA.cert,
    usernameHeaders: ['X-Remote-User'], uidHeaders: [], groupHeaders: ['X-Remote-Group'],
    extraHeaderPrefixes: ['X-Remote-Extra-'], allowedNames: ['front-proxy-client'],
  };
}

/** jsonDeserializeStringSlice: an empty value is none. */
function stringSlice(value: string | undefined): string[] {
  if (!value) return [];
  const parsed: unknown = JSON.parse(value);
  if (parsed !== null && !(Array.isArray(parsed) && parsed.every((s) => typeof s === 'string'))) throw new Error(`cannot unmarshal ${value} into []string`);
  return (parsed ?? []) as string[];
}

/** combineUniqueStringSlices */
function unique(a: string[], b: string[]): string[] {
  return [...new Set([...a, ...b])];
}

/** cert.ParseCertsPEM: every CERTIFICATE block, DER. */
function parseCerts(pem: string): Buffer[] {
  const out: Buffer[] = [];
  for (const m of pem.matchAll(/-----BEGIN ([^-\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    if (m[1] !== 'CERTIFICATE') continue;
    const der = Buffer.from(m[2]!.replace(/\s+/g, ''), 'base64');
    new X509Certificate(der);
    out.push(der);
  }
  if (pem.trim() && !out.length) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  return out;
}

/** pem.Encode of a certificate: base64 in lines of 64. */
function pemEncode(der: Buffer): string {
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
}

/** combineCertLists: both bundles' certificates, unexpired, each once, in order. */
function combineCerts(a: string, b: string, now: number): string {
  const seen = new Set<string>();
  let out = '';
  for (const der of [...parseCerts(a), ...parseCerts(b)]) {
    if (Date.parse(new X509Certificate(der).validTo) <= now - EXPIRY_SLACK_MS) continue;
    const key = der.toString('base64');
    if (seen.has(key)) continue;
    seen.add(key);
    out += pemEncode(der);
  }
  return out;
}

/** getConfigMapDataFor(combinedClusterAuthenticationInfo(existing, required)): the data the ConfigMap should hold. */
export function authenticationConfigMapData(existing: Record<string, string>, required: ClusterAuthenticationInfo, now: number): Record<string, string> {
  const clientCA = combineCerts(existing['client-ca-file'] ?? '', required.clientCA, now);
  const requestHeaderCA = combineCerts(existing['requestheader-client-ca-file'] ?? '', required.requestHeaderCA, now);
  const data: Record<string, string> = {};
  if (clientCA) data['client-ca-file'] = clientCA;
  if (!requestHeaderCA) return data;
  const combined = (key: string, values: string[]) => JSON.stringify(unique(stringSlice(existing[key]), values));
  data['requestheader-username-headers'] = combined('requestheader-username-headers', required.usernameHeaders);
  data['requestheader-uid-headers'] = combined('requestheader-uid-headers', required.uidHeaders);
  data['requestheader-group-headers'] = combined('requestheader-group-headers', required.groupHeaders);
  data['requestheader-extra-headers-prefix'] = combined('requestheader-extra-headers-prefix', required.extraHeaderPrefixes);
  data['requestheader-client-ca-file'] = requestHeaderCA;
  data['requestheader-allowed-names'] = combined('requestheader-allowed-names', required.allowedNames);
  return data;
}

const KEY = `${AUTHENTICATION_CONFIGMAP_NAMESPACE}/${AUTHENTICATION_CONFIGMAP_NAME}`;

/** The controller: one key, queued by changes to the ConfigMap and once a minute. */
export class ClusterAuthenticationTrustController {
  private readonly queue: RateLimitingQueue;
  private recheck?: TimerHandle;
  private stopped = false;

  constructor(private readonly ctx: ControllerContext, private readonly required: ClusterAuthenticationInfo) {
    this.queue = newQueue(ctx);
  }

  async start(): Promise<void> {
    await this.ctx.informers.inform(configmaps, (_type, obj) => {
      if (obj.metadata.namespace === AUTHENTICATION_CONFIGMAP_NAMESPACE && obj.metadata.name === AUTHENTICATION_CONFIGMAP_NAME) this.queue.add(KEY);
    });
    // The first sync before the API server reports ready, as the post-start hook primes it.
    await this.sync();
    this.tick();
    this.queue.run(1, () => this.sync(), (_k, e) => this.ctx.log(`cluster_authentication_trust_controller: ${(e as Error).message}`));
  }

  stop(): void {
    this.stopped = true;
    this.recheck?.cancel();
    this.queue.shutDown();
  }

  private tick(): void {
    if (this.stopped) return;
    this.queue.add(KEY);
    this.recheck = this.ctx.clock.after(RECHECK_MS, () => this.tick());
  }

  /** syncConfigMap */
  async sync(): Promise<void> {
    const client = this.ctx.client.resource(plain(configmaps));
    const ns = AUTHENTICATION_CONFIGMAP_NAMESPACE; const name = AUTHENTICATION_CONFIGMAP_NAME;
    const current = await client.find(ns, name) as (KObject & { data?: Record<string, string> }) | undefined;
    const data = authenticationConfigMapData(current?.data ?? {}, this.required, this.ctx.clock.now());
    if (current && semanticEqual(current.data ?? {}, data)) return;
    if (current) {
      try {
        await client.update(ns, name, () => ({ ...current, data }));
        return;
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
    try {
      await client.create(ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data } as KObject);
    } catch (e) {
      // Written by another meanwhile: the watch brings it back here.
      if (!isAlreadyExists(e)) throw e;
    }
  }
}
