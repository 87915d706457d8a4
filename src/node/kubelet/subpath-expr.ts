/**
 * A volume mount's subPath as the kubelet prepares it (kubelet_pods.go
 * makeMounts, kubecontainer.ExpandContainerVolumeMounts,
 * volumevalidation.ValidatePathNoBacksteps): subPathExpr expanded from the
 * container's environment (every variable it names must have a non-empty
 * value), then neither absolute nor climbing out with `..`. A failure is the
 * container's CreateContainerConfigError message.
 */
import type { VolumeMount } from 'kubernetes-types/core/v1.js';
import { expand } from '../runtime/env.js';

export function preparedSubPath(mount: VolumeMount, env: Readonly<Record<string, string>>): { subPath: string } | { error: string } {
  let subPath = mount.subPath ?? '';
  if (mount.subPathExpr) {
    const missing = new Set<string>();
    subPath = expand(mount.subPathExpr, (name) => {
      const v = Object.hasOwn(env, name) ? env[name] : undefined;
      if (!v) missing.add(name);
      return v ?? '';
    });
    if (missing.size) return { error: `missing value for ${[...missing].sort().join(', ')}` };
  }
  if (!subPath) return { subPath };
  if (subPath.startsWith('/')) return { error: `error SubPath \`${subPath}\` must not be an absolute path` };
  if (subPath.split('/').includes('..')) return { error: `unable to provision SubPath \`${subPath}\`: must not contain '..'` };
  return { subPath };
}

/** The container's mounts with every subPath prepared; the first failure as its message. */
export function prepareMounts(mounts: readonly VolumeMount[], env: Readonly<Record<string, string>>): { mounts: VolumeMount[] } | { error: string } {
  const out: VolumeMount[] = [];
  for (const m of mounts) {
    const r = preparedSubPath(m, env);
    if ('error' in r) return r;
    const { subPathExpr: _expr, ...rest } = m;
    out.push(r.subPath ? { ...rest, subPath: r.subPath } : rest);
  }
  return { mounts: out };
}
