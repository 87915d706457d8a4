/**
 * The container filesystem the kubelet mounts (pkg/volume/configmap,
 * secret, downwardapi, projected; AtomicWriter writes one file per key or
 * item path under the mount path): a ContainerFS for the shells of the
 * runtime and of `kubectl exec`. Missing sources are the volume plugins'
 * SetUp errors, which the kubelet reports as FailedMount events
 * (`MountVolume.SetUp failed for volume "x" : configmap "y" not found`).
 */
import { ContainerFS, type HostDir } from '../shell/fs.js';
import { atomicVolumeDirOwnership, atomicVolumeFileOwnership, emptyDirOwnership, podFsGroup, volumeFsType } from './volume-modes.js';
import type { KObject } from '../../apimachinery/object.js';
import type { Container } from 'kubernetes-types/core/v1.js';
import { ETC_HOSTS, kubeletEtcHosts, nodeHostsFile } from './etc-hosts.js';
import { fieldRefValue, formatMap, resourceFieldValue, type EnvSources, type PodNetworkInfo } from './env.js';

type Obj = Record<string, any>;

export class VolumeSetUpError extends Error {
  constructor(readonly volume: string, message: string) { super(message); }
  /** The FailedMount event message (operation_generator.go: MountVolume.SetUp failed for volume %q : %v). */
  get eventMessage(): string { return `MountVolume.SetUp failed for volume "${this.volume}" : ${this.message}`; }
}

/**
 * A volume that cannot be set up yet and is waited for without an event:
 * the volume manager's desired-state populator skips a pod whose claim is
 * missing or not bound (getPVCExtractPV: "PVC ... has non-bound phase"),
 * so the pod stays ContainerCreating until the claim binds.
 */
export class VolumeNotReadyError extends VolumeSetUpError {}

/** Mints the projected service account token (the kubelet's TokenRequest). */
export type TokenSource = (pod: KObject, audience: string | undefined, expirationSeconds: number) => string | undefined;

export interface VolumeContext {
  sources: EnvSources;
  net: PodNetworkInfo;
  /** The cluster CA (ca.crt of kube-root-ca.crt) for projected token volumes. */
  token?: TokenSource;
  /** The node's directory at a hostPath (shared by the node's pods); absent: a private empty directory. */
  hostDir?: (path: string) => HostDir;
  /** The pod's directory of an emptyDir volume, shared by its containers; absent: each container has its own. */
  emptyDir?: (volume: string) => HostDir;
  /** The node's own file at a hostPath (its /etc/hosts), mounted as that file; undefined for directories. */
  hostFile?: (path: string) => string | undefined;
}

/** A volume file's content: text, or the exact bytes of a configMap's binaryData key. */
export type VolumeFileContent = string | Uint8Array;
/** The pod's volume files by volume name (relative path → content). */
export type VolumeFiles = Map<string, Map<string, VolumeFileContent> | undefined>;

/** Files of one volume: relative path → content; undefined for volumes without files (emptyDir, hostPath, ...). */
export function volumeFiles(pod: KObject, volume: Obj, ctx: VolumeContext): Map<string, VolumeFileContent> | undefined {
  const ns = pod.metadata.namespace ?? 'default';
  const decode = (b: string) => Buffer.from(b, 'base64').toString('utf8');
  const keyed = (data: Record<string, VolumeFileContent>, items: Obj[] | undefined, kind: string, name: string, optional: boolean, out: Map<string, VolumeFileContent>) => {
    if (items?.length) {
      for (const it of items) {
        const value = Object.hasOwn(data, it.key) ? data[it.key] : undefined;
        if (value === undefined) {
          if (optional) continue;
          throw new VolumeSetUpError(volume.name, kind === 'secret' ? `references non-existent secret key: ${it.key}` : `configmap references non-existent config key: ${it.key}`);
        }
        out.set(it.path, value);
      }
    } else {
      for (const [k, v] of Object.entries(data)) out.set(k, v);
    }
    void name;
  };
  const configMapData = (cm: KObject): Record<string, VolumeFileContent> => {
    const o = cm as Obj;
    const data: Record<string, VolumeFileContent> = { ...(o.data ?? {}) };
    for (const [k, v] of Object.entries((o.binaryData ?? {}) as Record<string, string>)) data[k] = Buffer.from(v, 'base64');
    return data;
  };
  const secretData = (s: KObject): Record<string, string> =>
    Object.fromEntries(Object.entries(((s as Obj).data ?? {}) as Record<string, string>).map(([k, v]) => [k, decode(v)]));
  const downward = (items: Obj[], out: Map<string, VolumeFileContent>) => {
    for (const it of items ?? []) {
      if (it.fieldRef) out.set(it.path, fieldRefValue(pod, it.fieldRef.fieldPath, ctx.net));
      else if (it.resourceFieldRef) {
        const c = [...((pod.spec as Obj).initContainers ?? []), ...((pod.spec as Obj).containers ?? [])].find((x: Obj) => x.name === it.resourceFieldRef.containerName) ?? {};
        out.set(it.path, resourceFieldValue(c, it.resourceFieldRef, ctx.net));
      }
    }
  };
  const out = new Map<string, VolumeFileContent>();
  if (volume.configMap) {
    const v = volume.configMap;
    const cm = ctx.sources.configMap(ns, v.name);
    if (!cm) { if (v.optional) return out; throw new VolumeSetUpError(volume.name, `configmap "${v.name}" not found`); }
    keyed(configMapData(cm), v.items, 'configmap', v.name, v.optional === true, out);
    return out;
  }
  if (volume.secret) {
    const v = volume.secret;
    const s = ctx.sources.secret(ns, v.secretName);
    if (!s) { if (v.optional) return out; throw new VolumeSetUpError(volume.name, `secret "${v.secretName}" not found`); }
    keyed(secretData(s), v.items, 'secret', v.secretName, v.optional === true, out);
    return out;
  }
  if (volume.persistentVolumeClaim && ctx.sources.pvc) {
    const name = volume.persistentVolumeClaim.claimName;
    const pvc = ctx.sources.pvc(ns, name) as Obj | undefined;
    if (!pvc) throw new VolumeNotReadyError(volume.name, `error processing PVC ${ns}/${name}: failed to fetch PVC from API server: persistentvolumeclaims "${name}" not found`);
    if (pvc.status?.phase !== 'Bound' || !pvc.spec?.volumeName) {
      throw new VolumeNotReadyError(volume.name, `error processing PVC ${ns}/${name}: PVC ${ns}/${name} has non-bound phase ("${pvc.status?.phase ?? ''}") or empty pvc.Spec.VolumeName ("${pvc.spec?.volumeName ?? ''}")`);
    }
    const pv = ctx.sources.pv?.(pvc.spec.volumeName) as Obj | undefined;
    if (!pv) throw new VolumeNotReadyError(volume.name, `error processing PVC ${ns}/${name}: failed to fetch PV ${pvc.spec.volumeName} from API server: persistentvolumes "${pvc.spec.volumeName}" not found`);
    // A bound claim's volume (a local or hostPath directory on this node) is a directory the container writes to.
    return undefined;
  }
  if (volume.downwardAPI) { downward(volume.downwardAPI.items, out); return out; }
  if (volume.projected) {
    for (const s of volume.projected.sources ?? []) {
      if (s.configMap) {
        const cm = ctx.sources.configMap(ns, s.configMap.name);
        if (!cm) { if (s.configMap.optional) continue; throw new VolumeSetUpError(volume.name, `configmap "${s.configMap.name}" not found`); }
        keyed(configMapData(cm), s.configMap.items, 'configmap', s.configMap.name, s.configMap.optional === true, out);
      } else if (s.secret) {
        const sec = ctx.sources.secret(ns, s.secret.name);
        if (!sec) { if (s.secret.optional) continue; throw new VolumeSetUpError(volume.name, `secret "${s.secret.name}" not found`); }
        keyed(secretData(sec), s.secret.items, 'secret', s.secret.name, s.secret.optional === true, out);
      } else if (s.downwardAPI) downward(s.downwardAPI.items, out);
      else if (s.serviceAccountToken) {
        const t = ctx.token?.(pod, s.serviceAccountToken.audience, s.serviceAccountToken.expirationSeconds ?? 3607);
        if (t !== undefined) out.set(s.serviceAccountToken.path, t);
      }
    }
    return out;
  }
  return undefined;
}

/** Builds the filesystem of one container: every mounted volume's files at its mountPath (subPath: one entry). */
export function containerFS(pod: KObject, container: Obj, os: 'linux' | 'windows', ctx: VolumeContext,
  cache: VolumeFiles = new Map()): ContainerFS {
  const fs = new ContainerFS(os);
  const volumes = new Map<string, Obj>(((pod.spec as Obj).volumes ?? []).map((v: Obj) => [v.name, v]));
  const fsGroup = podFsGroup(pod);
  for (const m of container.volumeMounts ?? []) {
    const vol = volumes.get(m.name);
    if (!vol) continue;
    if (!cache.has(m.name)) cache.set(m.name, volumeFiles(pod, vol, ctx));
    const files = cache.get(m.name);
    const sep = os === 'windows' ? '\\' : '/';
    const base = String(m.mountPath).replace(/[\\/]+$/, '');
    const hostFile = vol.hostPath && !m.subPath ? ctx.hostFile?.(String(vol.hostPath.path ?? '')) : undefined;
    if (hostFile !== undefined) { fs.mountFile(m.mountPath, hostFile, m.readOnly === true); continue; }
    if (vol.hostPath && ctx.hostDir) {
      const hostPath = String(vol.hostPath.path ?? '') + (m.subPath ? `/${m.subPath}` : '');
      fs.mountHostDir(m.mountPath, ctx.hostDir(hostPath), m.readOnly === true);
      continue;
    }
    const fsType = volumeFsType(vol);
    if (fsType && os === 'linux') fs.setFsType(m.mountPath, fsType);
    if (vol.emptyDir && ctx.emptyDir) {
      const dir = ctx.emptyDir(m.name);
      const root = dir.entries.get('');
      if (root && root.mode === undefined) Object.assign(root, emptyDirOwnership(vol, fsGroup));
      // A subPath binds that directory of the pod's one emptyDir, created if missing (kubelet_pods.go makeMounts).
      fs.mountHostDir(m.mountPath, dir, m.readOnly === true, m.subPath ?? '');
      continue;
    }
    if (!files) { fs.mountDir(m.mountPath, m.readOnly === true, vol.emptyDir ? emptyDirOwnership(vol, fsGroup) : undefined); continue; }
    if (m.subPath) {
      const f = files.get(m.subPath);
      if (f !== undefined) fs.mountFile(base, f, true, atomicVolumeFileOwnership(vol, m.subPath, fsGroup));
      continue;
    }
    fs.mountDir(m.mountPath, true, atomicVolumeDirOwnership(vol, fsGroup));
    for (const [rel, content] of files) {
      fs.mountFile(`${base}${sep}${os === 'windows' ? rel.replace(/\//g, '\\') : rel}`, content, true, atomicVolumeFileOwnership(vol, rel, fsGroup));
    }
  }
  const hosts = os === 'linux' ? kubeletEtcHosts(pod, container as Container, ctx.net.podIPs, ctx.hostFile?.(ETC_HOSTS) ?? nodeHostsFile(ctx.net.nodeName)) : undefined;
  if (hosts !== undefined) fs.mountFile(ETC_HOSTS, hosts, false);
  return fs;
}

/**
 * The kubelet's remount of a running container's configMap, secret,
 * downwardAPI and projected volumes (each pod sync: AtomicWriter swaps the
 * `..data` link), so the container reads the sources' current data. A
 * subPath mount is a bind of one file and keeps what it had (upstream:
 * "a container using a ConfigMap as a subPath volume mount will not
 * receive ConfigMap updates"). `files` are the volumes' new files by name.
 */
export function refreshVolumeFiles(fs: ContainerFS, pod: KObject, container: Obj, os: 'linux' | 'windows', files: VolumeFiles): void {
  const volumes = new Map<string, Obj>(((pod.spec as Obj).volumes ?? []).map((v: Obj) => [v.name, v]));
  const fsGroup = podFsGroup(pod);
  const sep = os === 'windows' ? '\\' : '/';
  for (const m of container.volumeMounts ?? []) {
    const vol = volumes.get(m.name);
    const current = files.get(m.name);
    if (!vol || !current || m.subPath || vol.persistentVolumeClaim) continue;
    const base = String(m.mountPath).replace(/[\\/]+$/, '');
    fs.clearBelow(m.mountPath);
    for (const [rel, content] of current) {
      fs.mountFile(`${base}${sep}${os === 'windows' ? rel.replace(/\//g, '\\') : rel}`, content, true, atomicVolumeFileOwnership(vol, rel, fsGroup));
    }
  }
}

export { formatMap };
