/**
 * What a configMap, secret, downwardAPI or projected volume's files are
 * made of, as one comparable key: the source objects' resourceVersions (or
 * their absence), the values of the pod fields its downward API items read,
 * and for a service account token whether it is due for refresh. Upstream's
 * kubelet writes a volume's payload only when it changed (AtomicWriter) and
 * refreshes a token at 80 % of its lifetime or after 24 h (token_manager.go
 * requiresRefresh); the pod worker compares these keys to remount only the
 * volumes whose inputs moved.
 */
import type { KObject } from '../../apimachinery/object.js';
import type { Container, DownwardAPIVolumeFile, PodSpec, Volume } from 'kubernetes-types/core/v1.js';
import { fieldRefValue, resourceFieldValue, type EnvSources, type PodNetworkInfo } from '../runtime/env.js';

/** A token is re-requested once 80 % of its lifetime has passed, and at the latest after 24 h. */
export function tokenRefreshDue(mintedAtMs: number, expirationSeconds: number, nowMs: number): boolean {
  const ttlMs = expirationSeconds * 1000;
  return nowMs - mintedAtMs >= Math.min(ttlMs * 0.8, 24 * 3600 * 1000);
}

export interface VolumeInputContext {
  sources: EnvSources;
  net: PodNetworkInfo;
}

const version = (o: KObject | undefined) => (o ? `${o.metadata.uid ?? ''}@${o.metadata.resourceVersion ?? ''}` : '-');

/**
 * The volume's inputs as a key; undefined for a volume without files of
 * its own (emptyDir, hostPath, a claim), which a resync leaves alone.
 */
export function volumeInputsKey(pod: KObject, volume: Volume, ctx: VolumeInputContext): string | undefined {
  const ns = pod.metadata.namespace ?? 'default';
  const spec = pod.spec as PodSpec | undefined;
  const containers = (): Container[] => [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
  const downward = (items: readonly DownwardAPIVolumeFile[] | undefined): string[] => (items ?? []).map((it) => {
    if (it.fieldRef) return `f:${it.path}=${fieldRefValue(pod, it.fieldRef.fieldPath, ctx.net)}`;
    const ref = it.resourceFieldRef;
    if (ref) return `r:${it.path}=${resourceFieldValue(containers().find((x) => x.name === ref.containerName) ?? {}, ref, ctx.net)}`;
    return `-:${it.path}`;
  });
  if (volume.configMap) return `cm:${version(ctx.sources.configMap(ns, volume.configMap.name ?? ''))}`;
  if (volume.secret) return `s:${version(ctx.sources.secret(ns, volume.secret.secretName ?? ''))}`;
  if (volume.downwardAPI) return JSON.stringify(downward(volume.downwardAPI.items));
  if (volume.projected) {
    const parts: string[] = [];
    for (const s of volume.projected.sources ?? []) {
      if (s.configMap) parts.push(`cm:${version(ctx.sources.configMap(ns, s.configMap.name ?? ''))}`);
      else if (s.secret) parts.push(`s:${version(ctx.sources.secret(ns, s.secret.name ?? ''))}`);
      else if (s.downwardAPI) parts.push(...downward(s.downwardAPI.items));
      else if (s.serviceAccountToken) parts.push(`t:${s.serviceAccountToken.path}`);
    }
    return JSON.stringify(parts);
  }
  return undefined;
}

/** The longest-lived token's lifetime a projected volume requests (seconds), undefined when it has none. */
export function volumeTokenExpiration(volume: Volume): number | undefined {
  let out: number | undefined;
  for (const s of volume.projected?.sources ?? []) {
    if (s.serviceAccountToken) out = Math.min(out ?? Infinity, s.serviceAccountToken.expirationSeconds ?? 3607);
  }
  return out;
}

/** The inputs a volume's files were last written from, and when (the age of its token). */
export interface WrittenVolume { key: string; atMs: number }

/**
 * The volumes a resync rewrites: those never written, those whose inputs
 * changed, and those whose token is due for refresh. `current` holds the
 * keys of the volumes the pod's containers mount; `tokenTtl` the lifetime
 * of each projected volume's token (seconds).
 */
export function volumesToRewrite(written: ReadonlyMap<string, WrittenVolume>, current: ReadonlyMap<string, string>,
  tokenTtl: ReadonlyMap<string, number>, nowMs: number): Set<string> {
  const out = new Set<string>();
  for (const [name, key] of current) {
    const w = written.get(name);
    const ttl = tokenTtl.get(name);
    if (!w || w.key !== key || (ttl !== undefined && tokenRefreshDue(w.atMs, ttl, nowMs))) out.add(name);
  }
  return out;
}
