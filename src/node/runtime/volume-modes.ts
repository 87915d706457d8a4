/**
 * The modes and owners the kubelet gives volume files and directories on a
 * Linux node, and the filesystem each volume lies on:
 *
 * - configMap, secret, downwardAPI and projected files (AtomicWriter) have
 *   the item's `mode`, else the volume's `defaultMode`, else 0644
 *   (ConfigMapVolumeSourceDefaultMode and the others), owned by root;
 * - with a pod `fsGroup`, SetVolumeOwnership (pkg/volume/volume_linux.go)
 *   chowns every file and directory to the group and ORs 0440 into files of
 *   these read-only volume types (0660 into writable ones), and 0110 plus
 *   setgid into directories;
 * - an emptyDir's directory is 0777 (setupDir), on tmpfs 1777 (tmpfs mounts
 *   with the sticky bit);
 * - secret, projected and downwardAPI volumes wrap a memory-backed emptyDir
 *   (tmpfs); configMap and emptyDir on the default medium are on the
 *   kubelet's disk.
 */
import type { PodSpec, Volume as V1Volume } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../apimachinery/object.js';
import type { FileOwnership, FsType } from '../shell/fs.js';

/** A volume's source (its name does not matter here). */
type Volume = Omit<V1Volume, 'name'>;

const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;
const DEFAULT_MODE = 0o644;

/** Sources whose items can carry a mode, in the order a projected volume lists them. */
function itemLists(volume: Volume): { items: readonly { path: string; mode?: number }[]; defaultMode: number | undefined }[] {
  const own = volume.configMap ?? volume.secret ?? volume.downwardAPI;
  if (own) return [{ items: own.items ?? [], defaultMode: own.defaultMode }];
  if (volume.projected) {
    const defaultMode = volume.projected.defaultMode;
    return (volume.projected.sources ?? []).map((s) => ({ items: (s.configMap ?? s.secret ?? s.downwardAPI)?.items ?? [], defaultMode }));
  }
  return [];
}

/** The permission bits of one file of a configMap, secret, downwardAPI or projected volume (its path relative to the mount). */
export function volumeFileMode(volume: Volume, relPath: string): number {
  const lists = itemLists(volume);
  for (const l of lists) {
    const item = l.items.find((it) => it.path === relPath);
    if (item) return item.mode ?? l.defaultMode ?? DEFAULT_MODE;
  }
  return lists[0]?.defaultMode ?? DEFAULT_MODE;
}

/** SetVolumeOwnership's change of one entry: the fsGroup as its group, and the group bits it needs. */
export function applyFsGroup(o: FileOwnership, fsGroup: number | undefined, readOnly: boolean, isDir: boolean): FileOwnership {
  if (fsGroup === undefined) return o;
  let mask = readOnly ? 0o440 : 0o660;
  if (isDir) mask |= S_ISGID | 0o110;
  return { mode: o.mode | mask, uid: o.uid, gid: fsGroup };
}

/** The pod's fsGroup, if set. */
export function podFsGroup(pod: KObject): number | undefined {
  const g = (pod.spec as PodSpec | undefined)?.securityContext?.fsGroup;
  return typeof g === 'number' ? g : undefined;
}

/** An emptyDir's own directory. */
export function emptyDirOwnership(volume: Volume, fsGroup: number | undefined): FileOwnership {
  const mode = volume.emptyDir?.medium === 'Memory' ? 0o777 | S_ISVTX : 0o777;
  return applyFsGroup({ mode, uid: 0, gid: 0 }, fsGroup, false, true);
}

/** The mount directory of an AtomicWriter volume (its wrapped emptyDir). */
export function atomicVolumeDirOwnership(volume: Volume, fsGroup: number | undefined): FileOwnership {
  const mode = volumeFsType(volume) === 'tmpfs' ? 0o777 | S_ISVTX : 0o777;
  return applyFsGroup({ mode, uid: 0, gid: 0 }, fsGroup, true, true);
}

/** One file of an AtomicWriter volume. */
export function atomicVolumeFileOwnership(volume: Volume, relPath: string, fsGroup: number | undefined): FileOwnership {
  return applyFsGroup({ mode: volumeFileMode(volume, relPath), uid: 0, gid: 0 }, fsGroup, true, false);
}

/** The filesystem a volume's mount lies on; undefined for kinds whose filesystem is the node's own (hostPath, claims). */
export function volumeFsType(volume: Volume): FsType | undefined {
  if (volume.emptyDir) return volume.emptyDir.medium === 'Memory' ? 'tmpfs' : 'ext4';
  if (volume.secret || volume.projected || volume.downwardAPI) return 'tmpfs';
  if (volume.configMap) return 'ext4';
  return undefined;
}
