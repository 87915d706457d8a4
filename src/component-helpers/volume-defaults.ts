/**
 * Volume source defaults of pkg/apis/core/v1 (defaults.go and the +default
 * markers in zz_generated.defaults.go, v1.32), shared by pods, pod templates
 * and persistent volumes.
 */
import { isObject } from '../meta/json.js';
import { canonicalQuantity, defaultResourceList } from '../apimachinery/quantity.js';

/** Every VolumeSource member; a volume naming none of them becomes an emptyDir. */
const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];

/** 0644: the default mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_MODE = 420;

function setIfUnset(obj: Record<string, any>, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

/** SetDefaults_ObjectFieldSelector. */
export function defaultFieldRef(ref: Record<string, any> | undefined | null): void {
  if (isObject(ref)) setIfUnset(ref, 'apiVersion', 'v1');
}

/** SetDefaults_HostPathVolumeSource: type "" (HostPathUnset). */
function defaultHostPath(s: Record<string, any>): void {
  if (s.type === undefined || s.type === null) s.type = '';
}

/** RBD: pool, user and keyring markers. */
function defaultRBD(s: Record<string, any>): void {
  setIfUnset(s, 'pool', 'rbd');
  setIfUnset(s, 'user', 'admin');
  setIfUnset(s, 'keyring', '/etc/ceph/keyring');
}

function defaultISCSI(s: Record<string, any>): void {
  setIfUnset(s, 'iscsiInterface', 'default');
}

function defaultAzureDisk(s: Record<string, any>): void {
  setIfUnset(s, 'cachingMode', 'ReadWrite');
  setIfUnset(s, 'fsType', 'ext4');
  if (s.readOnly === undefined || s.readOnly === null) s.readOnly = false;
  setIfUnset(s, 'kind', 'Shared');
}

function defaultScaleIO(s: Record<string, any>): void {
  setIfUnset(s, 'storageMode', 'ThinProvisioned');
  setIfUnset(s, 'fsType', 'xfs');
}

function defaultMode(s: Record<string, any>): void {
  if (s.defaultMode === undefined || s.defaultMode === null) s.defaultMode = DEFAULT_MODE;
}

/** SetDefaults_PersistentVolumeClaimSpec and the ResourceLists under it. */
export function defaultPVCSpec(spec: Record<string, any>): void {
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  // VolumeResourceRequirements is a struct: Go always writes "resources".
  if (!isObject(spec.resources)) spec.resources = {};
  defaultResourceList(spec.resources.limits);
  defaultResourceList(spec.resources.requests);
}

/** One pod volume: SetDefaults_Volume and its source's defaults. */
export function defaultVolume(v: Record<string, any>): void {
  if (!isObject(v)) return;
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined && v[k] !== null)) v.emptyDir = {};
  if (isObject(v.emptyDir) && v.emptyDir.sizeLimit != null) v.emptyDir.sizeLimit = canonicalQuantity(v.emptyDir.sizeLimit);
  if (isObject(v.hostPath)) defaultHostPath(v.hostPath);
  if (isObject(v.secret)) defaultMode(v.secret);
  if (isObject(v.iscsi)) defaultISCSI(v.iscsi);
  if (isObject(v.rbd)) defaultRBD(v.rbd);
  if (isObject(v.downwardAPI)) {
    defaultMode(v.downwardAPI);
    for (const item of v.downwardAPI.items ?? []) defaultFieldRef(item?.fieldRef);
  }
  if (isObject(v.configMap)) defaultMode(v.configMap);
  if (isObject(v.azureDisk)) defaultAzureDisk(v.azureDisk);
  if (isObject(v.projected)) {
    defaultMode(v.projected);
    for (const src of v.projected.sources ?? []) {
      if (!isObject(src)) continue;
      if (isObject(src.downwardAPI)) for (const item of src.downwardAPI.items ?? []) defaultFieldRef(item?.fieldRef);
      if (isObject(src.serviceAccountToken)) {
        // SetDefaults_ServiceAccountTokenProjection: one hour.
        const t = src.serviceAccountToken;
        if (t.expirationSeconds === undefined || t.expirationSeconds === null) t.expirationSeconds = 3600;
      }
    }
  }
  if (isObject(v.scaleIO)) defaultScaleIO(v.scaleIO);
  if (isObject(v.ephemeral) && isObject(v.ephemeral.volumeClaimTemplate)) {
    const tpl = v.ephemeral.volumeClaimTemplate;
    if (!isObject(tpl.spec)) tpl.spec = {};
    defaultPVCSpec(tpl.spec);
  }
}

/** The PersistentVolumeSource members that carry defaults. */
export function defaultPersistentVolumeSource(spec: Record<string, any>): void {
  if (isObject(spec.hostPath)) defaultHostPath(spec.hostPath);
  if (isObject(spec.rbd)) defaultRBD(spec.rbd);
  if (isObject(spec.iscsi)) defaultISCSI(spec.iscsi);
  if (isObject(spec.azureDisk)) defaultAzureDisk(spec.azureDisk);
  if (isObject(spec.scaleIO)) defaultScaleIO(spec.scaleIO);
}
