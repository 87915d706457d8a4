/**
 * "Windows cannot map single files into a Docker container": cri-dockerd
 * hands the kubelet's mounts to Docker as `HostConfig.Binds`
 * (`<hostPath>:<containerPath>[:ro]`), and Docker's Windows mount parser
 * (volume/mounts/windows_parser.go parseMount → validateMountConfigReg)
 * refuses a bind whose source is a file:
 * `invalid volume specification: '<raw>': invalid mount config for type "bind": source path must be a directory`,
 * which the kubelet shows as the CreateContainer error (`Error response from daemon: ...`).
 *
 * The paths are the Windows kubelet's: volumes under
 * `c:\var\lib\kubelet\pods\<uid>\volumes\kubernetes.io~<plugin>\<volume>` (the
 * default root directory, made absolute with `c:` as makeMounts does), the
 * subPath joined to it (subpath_windows.go), the container path made
 * absolute by volumeutil.MakeAbsolutePath; configMap, secret, projected and
 * downwardAPI volumes are mounted read-only (their mounters' ReadOnly attribute).
 */
type Obj = Record<string, any>;

const PLUGINS: Record<string, string> = { configMap: 'configmap', secret: 'secret', projected: 'projected', downwardAPI: 'downward-api' };

/** volumeutil.MakeAbsolutePath for Windows. */
export function windowsAbsolutePath(path: string): string {
  if (path.includes(':')) return path;
  if (path.startsWith('/') || path.startsWith('\\')) return `c:${path}`;
  return `c:\\${path}`;
}

/**
 * The Docker error for the first mount of `container` that maps a single file, or undefined.
 * `files` are the pod's volume files (relative path → content) by volume name.
 */
export function singleFileMountError(podUID: string, volumes: readonly Obj[], container: Obj,
  files: ReadonlyMap<string, ReadonlyMap<string, unknown> | undefined>): string | undefined {
  for (const m of (container.volumeMounts ?? []) as Obj[]) {
    const vol = volumes.find((v) => v.name === m.name);
    if (!vol) continue;
    let hostPath: string | undefined;
    let readOnly = m.readOnly === true;
    const plugin = Object.keys(PLUGINS).find((k) => vol[k]);
    if (plugin && m.subPath && files.get(m.name)?.has(m.subPath)) {
      hostPath = `c:\\var\\lib\\kubelet\\pods\\${podUID}\\volumes\\kubernetes.io~${PLUGINS[plugin]}\\${m.name}\\${String(m.subPath).replace(/\//g, '\\')}`;
      readOnly = true;
    } else if (vol.hostPath && (vol.hostPath.type === 'File' || vol.hostPath.type === 'FileOrCreate') && !m.subPath) {
      hostPath = windowsAbsolutePath(String(vol.hostPath.path));
    }
    if (hostPath === undefined) continue;
    const raw = `${hostPath}:${windowsAbsolutePath(String(m.mountPath))}${readOnly ? ':ro' : ''}`;
    return `Error response from daemon: invalid volume specification: '${raw}': invalid mount config for type "bind": source path must be a directory`;
  }
  return undefined;
}
