/**
 * Volume validation of pkg/apis/core/validation (v1.32): ValidateVolumes,
 * validateVolumeSource and the per-source validators, ValidateVolumeMounts
 * and ValidateVolumeDevices, over v1 JSON.
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { isDNS1123Subdomain, isDNS1123Label, isQualifiedName } from '../meta/names.js';
import { validateLabelSelector } from './common.js';
import { validateContainerResourceFieldSelector, validateObjectFieldSelector, VOLUME_FIELD_PATHS } from './container.js';
import { goSyntaxOf } from './go-types.js';
import {
  arr, child, dns1123Label, dns1123Subdomain, index, inclusiveRange, isObj, isSet, key, notFound, num, obj,
  qualifiedName, quantityOf, str, validateResourceQuantityValue, type Obj,
} from './pod-util.js';

/** Volume name -> its v1 source object, for the volumes that validated. */
export type VolumeMap = Map<string, Obj>;

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
const PD_PARTITION_ERROR = inclusiveRange(1, 255);

/** validatePathNoBacksteps */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  return target.split('/').includes('..') ? [field.invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without '..' elements. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(field.invalid(path, target, 'must be a relative path'));
  return [...errs, ...validatePathNoBacksteps(target, path)];
}

/** ValidateLocalNonReservedPath */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(field.invalid(path, target, "must not start with '..'"));
  return errs;
}

const modeErr = (v: unknown, p: string): FieldError[] =>
  (typeof v === 'number' && (v > 0o777 || v < 0) ? [field.invalid(p, v, FILE_MODE_ERROR)] : []);

function validateKeyToPath(kp: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(kp.key)) errs.push(field.required(child(path, 'key')));
  if (!str(kp.path)) errs.push(field.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(str(kp.path), child(path, 'path')));
  errs.push(...modeErr(kp.mode, child(path, 'mode')));
  return errs;
}

function validateDownwardAPIVolumeFile(f: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(f.path)) errs.push(field.required(child(path, 'path')));
  errs.push(...validateLocalNonReservedPath(str(f.path), child(path, 'path')));
  if (isObj(f.fieldRef)) {
    errs.push(...validateObjectFieldSelector(f.fieldRef, VOLUME_FIELD_PATHS, child(path, 'fieldRef')));
    if (isObj(f.resourceFieldRef)) errs.push(field.invalid(path, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (isObj(f.resourceFieldRef)) {
    errs.push(...validateContainerResourceFieldSelector(f.resourceFieldRef, child(path, 'resourceFieldRef'), true));
  } else {
    errs.push(field.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...modeErr(f.mode, child(path, 'mode')));
  return errs;
}

const IQN_RE = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9-.]+)(:[^,;*&$|\s]+)$/;
const EUI_RE = /^eui.[A-Za-z0-9]{16}$/;
const NAA_RE = /^naa.[A-Za-z0-9]{32}$/;

function validateISCSI(v: Obj, path: string, volName: string, volPath: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(v.targetPortal)) errs.push(field.required(child(path, 'targetPortal')));
  const iqn = str(v.iqn);
  if (!iqn) errs.push(field.required(child(path, 'iqn')));
  else if (!iqn.startsWith('iqn') && !iqn.startsWith('eui') && !iqn.startsWith('naa')) {
    errs.push(field.invalid(child(path, 'iqn'), iqn, 'must be valid format starting with iqn, eui, or naa'));
  } else if ((iqn.startsWith('iqn') && !IQN_RE.test(iqn)) || (iqn.startsWith('eui') && !EUI_RE.test(iqn)) ||
    (iqn.startsWith('naa') && !NAA_RE.test(iqn))) {
    errs.push(field.invalid(child(path, 'iqn'), iqn, 'must be valid format'));
  }
  const lun = num(v.lun);
  if (lun < 0 || lun > 255) errs.push(field.invalid(child(path, 'lun'), lun, inclusiveRange(0, 255)));
  if ((v.chapAuthDiscovery === true || v.chapAuthSession === true) && !isSet(v.secretRef)) errs.push(field.required(child(path, 'secretRef')));
  if (isSet(v.initiatorName)) {
    const ini = str(v.initiatorName);
    const ip = child(path, 'initiatorname');
    if (!ini.startsWith('iqn') && !ini.startsWith('eui') && !ini.startsWith('naa')) {
      errs.push(field.invalid(ip, ini, 'must be valid format starting with iqn, eui, or naa'));
    }
    if ((ini.startsWith('iqn') && !IQN_RE.test(ini)) || (ini.startsWith('eui') && !EUI_RE.test(ini)) ||
      (ini.startsWith('naa') && !NAA_RE.test(ini))) {
      errs.push(field.invalid(ip, ini, 'must be valid format'));
    }
  }
  if (isSet(v.initiatorName) && Buffer.byteLength(`${volName}:${str(v.targetPortal)}`) > 64) {
    errs.push(field.invalid(child(volPath, 'name'), volName,
      'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'));
  }
  return errs;
}

function validateProjection(v: Obj, path: string, opts: VolumeOptions): FieldError[] {
  const errs = modeErr(v.defaultMode, child(path, 'defaultMode'));
  const allPaths = new Set<string>();
  arr(v.sources).map(obj).forEach((s, i) => {
    let n = 0;
    const sp = index(child(path, 'sources'), i);
    for (const kind of ['secret', 'configMap'] as const) {
      if (!isObj(s[kind])) continue;
      n++;
      const pp = child(sp, kind);
      const src = s[kind];
      if (!str(src.name)) errs.push(field.required(child(pp, 'name')));
      arr(src.items).map(obj).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, index(child(pp, 'items'), j)));
        const p = str(kp.path);
        if (p.length > 0) {
          if (!allPaths.has(p)) allPaths.add(p); else errs.push(field.invalid(path, str(src.name), 'conflicting duplicate paths'));
        }
      });
    }
    if (isObj(s.downwardAPI)) {
      n++;
      const pp = child(sp, 'downwardAPI');
      for (const f of arr(s.downwardAPI.items).map(obj)) {
        errs.push(...validateDownwardAPIVolumeFile(f, pp));
        const p = str(f.path);
        if (p.length > 0) {
          if (!allPaths.has(p)) allPaths.add(p); else errs.push(field.invalid(path, p, 'conflicting duplicate paths'));
        }
      }
    }
    if (isObj(s.serviceAccountToken)) {
      n++;
      const pp = child(sp, 'serviceAccountToken');
      const t = s.serviceAccountToken;
      const exp = num(t.expirationSeconds);
      if (exp < 600) errs.push(field.invalid(child(pp, 'expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(field.invalid(child(pp, 'expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
      if (str(t.path) === '') errs.push(field.required(child(path, 'path')));
      else if (!opts.allowNonLocalProjectedTokenPath) errs.push(...validateLocalNonReservedPath(str(t.path), child(path, 'path')));
    }
    if (isObj(s.clusterTrustBundle)) {
      n++;
      const pp = child(sp, 'clusterTrustBundlePEM');
      const ctb = s.clusterTrustBundle;
      const usingName = isSet(ctb.name);
      const usingSigner = isSet(ctb.signerName);
      if (usingName && usingSigner) {
        errs.push(field.invalid(pp, { goSyntax: `&${goSyntaxOf('core.ClusterTrustBundleProjection', ctb)}` }, 'only one of name and signerName may be used'));
      } else if (usingName) {
        if (str(ctb.name) === '') errs.push(field.required(child(pp, 'name'), 'must be a valid object name'));
        if (isSet(ctb.labelSelector)) {
          errs.push(field.invalid(child(pp, 'labelSelector'), { goSyntax: 'nil' }, 'labelSelector must be unset if name is specified'));
        }
      } else if (usingSigner) {
        if (str(ctb.signerName) === '') errs.push(field.required(child(pp, 'signerName'), 'must be a valid signer name'));
        errs.push(...validateLabelSelector(ctb.labelSelector, {}, child(pp, 'labelSelector')));
      } else {
        errs.push(field.required(pp, 'either name or signerName must be specified'));
      }
      if (str(ctb.path) === '') errs.push(field.required(child(pp, 'path')));
      errs.push(...validateLocalNonReservedPath(str(ctb.path), child(pp, 'path')));
      const p = str(ctb.path);
      if (!allPaths.has(p)) allPaths.add(p); else errs.push(field.invalid(path, p, 'conflicting duplicate paths'));
    }
    if (n > 1) errs.push(field.forbidden(sp, 'may not specify more than 1 volume type'));
  });
  return errs;
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validatePVCSpecMinimal(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const modes = arr(spec.accessModes).map(str);
  if (modes.length === 0) errs.push(field.required(child(path, 'accessModes'), 'at least 1 access mode is required'));
  const supported = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
  let rwop = false;
  let other = false;
  for (const m of modes) {
    if (!supported.includes(m)) errs.push(field.notSupported(child(path, 'accessModes'), m, supported));
    if (m === 'ReadWriteOncePod') rwop = true; else if (supported.includes(m)) other = true;
  }
  if (rwop && other) errs.push(field.forbidden(child(path, 'accessModes'), 'may not use ReadWriteOncePod with other access modes'));
  errs.push(...validateLabelSelector(spec.selector, {}, child(path, 'selector')));
  const reqPath = child(child(path, 'resources'), 'requests');
  const storage = obj(obj(spec.resources).requests).storage;
  const sp = key(child(path, 'resources'), 'storage');
  if (!isSet(storage)) errs.push(field.required(sp, ''));
  else {
    const q = quantityOf(storage);
    if (q && (q.neg || q.unscaled === 0n)) errs.push(field.invalid(sp, str(storage), 'must be greater than zero'));
    else errs.push(...validateResourceQuantityValue('storage', storage, sp));
  }
  void reqPath;
  if (isSet(spec.storageClassName) && str(spec.storageClassName).length > 0) {
    errs.push(...dns1123Subdomain(str(spec.storageClassName), child(path, 'storageClassName')));
  }
  if (isSet(spec.volumeMode) && !['Block', 'Filesystem'].includes(str(spec.volumeMode))) {
    errs.push(field.notSupported(child(path, 'volumeMode'), str(spec.volumeMode), ['Block', 'Filesystem']));
  }
  return errs;
}

export interface VolumeOptions {
  allowNonLocalProjectedTokenPath?: boolean;
}

/** validateVolumeSource: exactly one source, each validated (error paths as upstream spells them). */
function validateVolumeSource(v: Obj, path: string, volName: string, podName: string | undefined, opts: VolumeOptions): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  const src = (jsonKey: string, errKey: string, check: (s: Obj, p: string) => FieldError[], forbidKey = jsonKey) => {
    if (!isSet(v[jsonKey])) return;
    if (n > 0) { errs.push(field.forbidden(child(path, forbidKey), 'may not specify more than 1 volume type')); return; }
    n++;
    errs.push(...check(obj(v[jsonKey]), child(path, errKey)));
  };
  if (isSet(v.emptyDir)) {
    n++;
    const q = quantityOf(v.emptyDir.sizeLimit);
    if (q && q.neg && q.unscaled !== 0n) {
      errs.push(field.forbidden(child(child(path, 'emptyDir'), 'sizeLimit'), 'SizeLimit field must be a valid resource quantity'));
    }
  }
  src('hostPath', 'hostPath', (s, p) => {
    if (!str(s.path)) return [field.required(child(p, 'path'))];
    const out = validatePathNoBacksteps(str(s.path), child(p, 'path'));
    if (isSet(s.type) && !HOST_PATH_TYPES.includes(str(s.type))) out.push(field.notSupported(child(p, 'type'), str(s.type), HOST_PATH_TYPES));
    return out;
  });
  src('gitRepo', 'gitRepo', (s, p) => [
    ...(str(s.repository) ? [] : [field.required(child(p, 'repository'))]),
    ...validateLocalDescendingPath(str(s.directory), child(p, 'directory')),
  ]);
  src('gcePersistentDisk', 'persistentDisk', (s, p) => [
    ...(str(s.pdName) ? [] : [field.required(child(p, 'pdName'))]),
    ...(num(s.partition) < 0 || num(s.partition) > 255 ? [field.invalid(child(p, 'partition'), num(s.partition), PD_PARTITION_ERROR)] : []),
  ]);
  src('awsElasticBlockStore', 'awsElasticBlockStore', (s, p) => [
    ...(str(s.volumeID) ? [] : [field.required(child(p, 'volumeID'))]),
    ...(num(s.partition) < 0 || num(s.partition) > 255 ? [field.invalid(child(p, 'partition'), num(s.partition), PD_PARTITION_ERROR)] : []),
  ]);
  src('secret', 'secret', (s, p) => [
    ...(str(s.secretName) ? [] : [field.required(child(p, 'secretName'))]),
    ...modeErr(s.defaultMode, child(p, 'defaultMode')),
    ...arr(s.items).flatMap((kp, i) => validateKeyToPath(obj(kp), index(child(p, 'items'), i))),
  ]);
  src('nfs', 'nfs', (s, p) => [
    ...(str(s.server) ? [] : [field.required(child(p, 'server'))]),
    ...(str(s.path) ? [] : [field.required(child(p, 'path'))]),
    ...(str(s.path).startsWith('/') ? [] : [field.invalid(child(p, 'path'), str(s.path), 'must be an absolute path')]),
  ]);
  src('iscsi', 'iscsi', (s, p) => validateISCSI(s, p, volName, path));
  src('glusterfs', 'glusterfs', (s, p) => [
    ...(str(s.endpoints) ? [] : [field.required(child(p, 'endpoints'))]),
    ...(str(s.path) ? [] : [field.required(child(p, 'path'))]),
  ]);
  src('flocker', 'flocker', (s, p) => {
    const out: FieldError[] = [];
    if (!str(s.datasetName) && !str(s.datasetUUID)) out.push(field.required(p, 'one of datasetName and datasetUUID is required'));
    if (str(s.datasetName) && str(s.datasetUUID)) out.push(field.invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
    if (str(s.datasetName).includes('/')) out.push(field.invalid(child(p, 'datasetName'), str(s.datasetName), "must not contain '/'"));
    return out;
  });
  src('persistentVolumeClaim', 'persistentVolumeClaim', (s, p) => (str(s.claimName) ? [] : [field.required(child(p, 'claimName'))]));
  src('rbd', 'rbd', (s, p) => [
    ...(arr(s.monitors).length ? [] : [field.required(child(p, 'monitors'))]),
    ...(str(s.image) ? [] : [field.required(child(p, 'image'))]),
  ]);
  src('cinder', 'cinder', (s, p) => [
    ...(str(s.volumeID) ? [] : [field.required(child(p, 'volumeID'))]),
    ...(isObj(s.secretRef) && !str(s.secretRef.name) ? [field.required(child(p, 'secretRef.name'))] : []),
  ]);
  src('cephfs', 'cephfs', (s, p) => (arr(s.monitors).length ? [] : [field.required(child(p, 'monitors'))]), 'cephFS');
  src('quobyte', 'quobyte', (s, p) => {
    const out: FieldError[] = [];
    if (!str(s.registry)) out.push(field.required(child(p, 'registry'), 'must be a host:port pair or multiple pairs separated by commas'));
    else if (str(s.tenant).length >= 65) out.push(field.required(child(p, 'tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
    else {
      for (const pair of str(s.registry).split(',')) {
        if (!/^(\[[^\]]*\]|[^:]*):[^:]*$/.test(pair)) {
          out.push(field.invalid(child(p, 'registry'), str(s.registry), 'must be a host:port pair or multiple pairs separated by commas'));
        }
      }
    }
    if (!str(s.volume)) out.push(field.required(child(p, 'volume')));
    return out;
  });
  src('downwardAPI', 'downwardAPI', (s, p) => [
    ...modeErr(s.defaultMode, child(p, 'defaultMode')),
    ...arr(s.items).flatMap((f) => validateDownwardAPIVolumeFile(obj(f), p)),
  ], 'downwarAPI');
  src('fc', 'fc', (s, p) => {
    const out: FieldError[] = [];
    const wwns = arr(s.targetWWNs);
    const wwids = arr(s.wwids);
    if (wwns.length < 1 && wwids.length < 1) out.push(field.required(child(p, 'targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
    if (wwns.length && wwids.length) {
      out.push(field.invalid(child(p, 'targetWWNs'), { goSyntax: goSyntaxOf('[]string', s.targetWWNs) }, 'targetWWNs and wwids can not be specified simultaneously'));
    }
    if (wwns.length) {
      if (!isSet(s.lun)) out.push(field.required(child(p, 'lun'), 'lun is required if targetWWNs is specified'));
      else if (num(s.lun) < 0 || num(s.lun) > 255) out.push(field.invalid(child(p, 'lun'), num(s.lun), inclusiveRange(0, 255)));
    }
    return out;
  });
  src('flexVolume', 'flexVolume', (s, p) => {
    const out: FieldError[] = str(s.driver) ? [] : [field.required(child(p, 'driver'))];
    for (const k of Object.keys(obj(s.options))) {
      const parts = k.split('/');
      const ns = parts.length >= 2 ? parts[0] ?? k : k;
      const norm = '.' + ns.toLowerCase();
      if (norm.endsWith('.kubernetes.io') || norm.endsWith('.k8s.io')) {
        out.push(field.invalid(key(child(p, 'options'), k), k, 'kubernetes.io and k8s.io namespaces are reserved'));
      }
    }
    return out;
  });
  src('configMap', 'configMap', (s, p) => [
    ...(str(s.name) ? [] : [field.required(child(p, 'name'))]),
    ...modeErr(s.defaultMode, child(p, 'defaultMode')),
    ...arr(s.items).flatMap((kp, i) => validateKeyToPath(obj(kp), index(child(p, 'items'), i))),
  ]);
  src('azureFile', 'azureFile', (s, p) => [
    ...(str(s.secretName) ? [] : [field.required(child(p, 'secretName'))]),
    ...(str(s.shareName) ? [] : [field.required(child(p, 'shareName'))]),
  ]);
  src('vsphereVolume', 'vsphereVolume', (s, p) => (str(s.volumePath) ? [] : [field.required(child(p, 'volumePath'))]));
  src('photonPersistentDisk', 'photonPersistentDisk', (s, p) => (str(s.pdID) ? [] : [field.required(child(p, 'pdID'))]));
  src('portworxVolume', 'portworxVolume', (s, p) => (str(s.volumeID) ? [] : [field.required(child(p, 'volumeID'))]));
  src('azureDisk', 'azureDisk', (s, p) => {
    const out: FieldError[] = [];
    if (!str(s.diskName)) out.push(field.required(child(p, 'diskName')));
    if (!str(s.diskURI)) out.push(field.required(child(p, 'diskURI')));
    if (isSet(s.cachingMode) && !['None', 'ReadOnly', 'ReadWrite'].includes(str(s.cachingMode))) {
      out.push(field.notSupported(child(p, 'cachingMode'), str(s.cachingMode), ['None', 'ReadOnly', 'ReadWrite']));
    }
    if (isSet(s.kind) && !['Dedicated', 'Managed', 'Shared'].includes(str(s.kind))) {
      out.push(field.notSupported(child(p, 'kind'), str(s.kind), ['Dedicated', 'Managed', 'Shared']));
    }
    if (isSet(s.kind) && s.kind === 'Managed' && str(s.diskURI).indexOf('/subscriptions/') !== 0) {
      out.push(field.notSupported(child(p, 'diskURI'), str(s.diskURI), ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
    }
    if (isSet(s.kind) && s.kind !== 'Managed' && str(s.diskURI).indexOf('https://') !== 0) {
      out.push(field.notSupported(child(p, 'diskURI'), str(s.diskURI), ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
    }
    return out;
  });
  src('storageos', 'storageos', (s, p) => {
    const out: FieldError[] = [];
    if (!str(s.volumeName)) out.push(field.required(child(p, 'volumeName')));
    else out.push(...dns1123Label(str(s.volumeName), child(p, 'volumeName')));
    if (str(s.volumeNamespace)) out.push(...dns1123Label(str(s.volumeNamespace), child(p, 'volumeNamespace')));
    if (isObj(s.secretRef) && !str(s.secretRef.name)) out.push(field.required(child(p, 'secretRef.name')));
    return out;
  });
  src('projected', 'projected', (s, p) => validateProjection(s, p, opts));
  src('scaleIO', 'scaleIO', (s, p) => [
    ...(str(s.gateway) ? [] : [field.required(child(p, 'gateway'))]),
    ...(str(s.system) ? [] : [field.required(child(p, 'system'))]),
    ...(str(s.volumeName) ? [] : [field.required(child(p, 'volumeName'))]),
  ]);
  src('csi', 'csi', (s, p) => {
    const driver = str(s.driver);
    const out: FieldError[] = [];
    const dp = child(p, 'driver');
    if (!driver) out.push(field.required(dp));
    if (Buffer.byteLength(driver) > 63) out.push({ type: 'FieldValueTooLong', field: dp, detail: 'may not be more than 63 bytes' });
    for (const m of isDNS1123Subdomain(driver.toLowerCase())) out.push(field.invalid(dp, driver, m));
    if (isObj(s.nodePublishSecretRef)) {
      const name = str(s.nodePublishSecretRef.name);
      if (!name) out.push(field.required(child(p, 'nodePublishSecretRef.name')));
      else for (const m of isDNS1123Subdomain(name)) out.push(field.invalid(child(p, 'name'), name, m));
    }
    return out;
  });
  src('ephemeral', 'ephemeral', (s, p) => {
    if (!isObj(s.volumeClaimTemplate)) return [field.required(child(p, 'volumeClaimTemplate'))];
    const t = s.volumeClaimTemplate;
    const tp = child(p, 'volumeClaimTemplate');
    const out = validateTemplateObjectMeta(obj(t.metadata), child(tp, 'metadata'));
    out.push(...validatePVCSpecMinimal(obj(t.spec), child(tp, 'spec')));
    if (podName && volName) {
      const pvcName = `${podName}-${volName}`;
      for (const m of isDNS1123Subdomain(pvcName)) out.push(field.invalid(child(path, 'name'), volName, `PVC name "${pvcName}": ${m}`));
    }
    return out;
  });
  if (n === 0) errs.push(field.required(path, 'must specify a volume type'));
  return errs;
}

/** ValidateTemplateObjectMeta: only labels and annotations may be set. */
function validateTemplateObjectMeta(meta: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(obj(meta.annotations))) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(child(path, 'annotations'), k, m));
    size += Buffer.byteLength(k) + Buffer.byteLength(str(v));
  }
  if (size > 256 * 1024) errs.push({ type: 'FieldValueTooLong', field: child(path, 'annotations'), detail: 'may not be more than 262144 bytes' });
  for (const [k, v] of Object.entries(obj(meta.labels))) {
    errs.push(...qualifiedName(k, child(path, 'labels')));
    for (const m of labelValueErrors(str(v))) errs.push(field.invalid(child(path, 'labels'), str(v), m));
  }
  for (const k of ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
    'deletionTimestamp', 'deletionGracePeriodSeconds', 'ownerReferences', 'finalizers', 'managedFields']) {
    const val = meta[k];
    if (val === undefined || val === null || val === '' || val === 0 || (Array.isArray(val) && val.length === 0)) continue;
    // validateFieldAllowList names the Go field with its first rune lowered ("UID" -> "uID").
    errs.push(field.forbidden(child(path, k === 'uid' ? 'uID' : k), 'cannot be set'));
  }
  return errs;
}

function labelValueErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push('must be no more than 63 characters');
  if (!/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v)) {
    errs.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')");
  }
  return errs;
}

/** ValidateVolumes: the volumes that validated, and the errors. */
export function validateVolumes(volumes: unknown, podName: string | undefined, path: string, opts: VolumeOptions):
{ vols: VolumeMap; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const vols: VolumeMap = new Map();
  const names = new Set<string>();
  const createdPVCs = new Set<string>();
  const list = arr(volumes).map(obj);
  if (podName) for (const v of list) if (isSet(v.ephemeral)) createdPVCs.add(`${podName}-${str(v.name)}`);
  list.forEach((v, i) => {
    const ip = index(path, i);
    const np = child(ip, 'name');
    const name = str(v.name);
    const el = validateVolumeSource(v, ip, name, podName, opts);
    if (!name) el.push(field.required(np));
    else el.push(...isDNS1123Label(name).map((m) => field.invalid(np, name, m)));
    if (names.has(name)) el.push(field.duplicate(np, name));
    if (el.length === 0) { names.add(name); vols.set(name, v); } else errs.push(...el);
    if (isObj(v.persistentVolumeClaim) && createdPVCs.has(str(v.persistentVolumeClaim.claimName))) {
      errs.push(field.invalid(child(child(ip, 'persistentVolumeClaim'), 'claimName'), str(v.persistentVolumeClaim.claimName),
        'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { vols, errs };
}

/** ValidateVolumeMounts */
export function validateVolumeMounts(mounts: unknown, devices: unknown, volumes: VolumeMap, container: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const devMap = new Map(arr(devices).map((d) => [str(obj(d).name), str(obj(d).devicePath)]));
  const devPaths = new Set(devMap.values());
  const mountpoints = new Set<string>();
  arr(mounts).map(obj).forEach((m, i) => {
    const ip = index(path, i);
    const name = str(m.name);
    const mp = str(m.mountPath);
    if (!name) errs.push(field.required(child(ip, 'name')));
    if (!volumes.has(name)) errs.push(notFound(child(ip, 'name'), name));
    if (!mp) errs.push(field.required(child(ip, 'mountPath')));
    if (mountpoints.has(mp)) errs.push(field.invalid(child(ip, 'mountPath'), mp, 'must be unique'));
    mountpoints.add(mp);
    if (devMap.has(name)) errs.push(field.invalid(child(ip, 'name'), name, 'must not already exist in volumeDevices'));
    if (devPaths.has(mp)) errs.push(field.invalid(child(ip, 'mountPath'), mp, 'must not already exist as a path in volumeDevices'));
    const sub = str(m.subPath);
    const subExpr = str(m.subPathExpr);
    // Upstream reports these two on the list's path, not the item's.
    if (sub.length > 0) errs.push(...validateLocalDescendingPath(sub, child(path, 'subPath')));
    if (subExpr.length > 0) {
      if (sub.length > 0) errs.push(field.invalid(child(ip, 'subPathExpr'), subExpr, 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(subExpr, child(path, 'subPathExpr')));
    }
    if (isSet(m.mountPropagation)) {
      const prop = str(m.mountPropagation);
      const pp = child(path, 'mountPropagation');
      if (!['Bidirectional', 'HostToContainer', 'None'].includes(prop)) {
        errs.push(field.notSupported(pp, prop, ['Bidirectional', 'HostToContainer', 'None']));
      }
      const privileged = isObj(container.securityContext) && container.securityContext.privileged === true;
      if (prop === 'Bidirectional' && !privileged) {
        errs.push(field.forbidden(pp, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
    if (isSet(m.recursiveReadOnly)) {
      const rro = str(m.recursiveReadOnly);
      const rp = child(path, 'recursiveReadOnly');
      if (rro === 'Enabled' || rro === 'IfPossible') {
        if (m.readOnly !== true) errs.push(field.forbidden(rp, 'may only be specified when readOnly is true'));
        if (isSet(m.mountPropagation) && m.mountPropagation !== 'None') {
          errs.push(field.forbidden(rp, 'may only be specified when mountPropagation is None or not specified'));
        }
      } else if (rro !== 'Disabled') {
        errs.push(field.notSupported(rp, rro, ['Disabled', 'Enabled', 'IfPossible']));
      }
    }
  });
  return errs;
}

/** ValidateVolumeDevices */
export function validateVolumeDevices(devices: unknown, mounts: unknown, volumes: VolumeMap, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const mountMap = new Map(arr(mounts).map((m) => [str(obj(m).name), str(obj(m).mountPath)]));
  const mountPaths = new Set(mountMap.values());
  const devPaths = new Set<string>();
  const devNames = new Set<string>();
  arr(devices).map(obj).forEach((d, i) => {
    const ip = index(path, i);
    const name = str(d.name);
    const dp = str(d.devicePath);
    const vol = volumes.get(name);
    const isPVC = !!vol && (isSet(vol.persistentVolumeClaim) || isSet(vol.ephemeral));
    if (!name) errs.push(field.required(child(ip, 'name')));
    if (devNames.has(name)) errs.push(field.invalid(child(ip, 'name'), name, 'must be unique'));
    if (vol && !isPVC) errs.push(field.invalid(child(ip, 'name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!vol) errs.push(notFound(child(ip, 'name'), name));
    if (!dp) errs.push(field.required(child(ip, 'devicePath')));
    if (devPaths.has(dp)) errs.push(field.invalid(child(ip, 'devicePath'), dp, 'must be unique'));
    if (dp.length > 0 && validatePathNoBacksteps(dp, '').length > 0) {
      errs.push(field.invalid(child(ip, 'devicePath'), dp, "can not contain backsteps ('..')"));
    } else devPaths.add(dp);
    if (mountMap.has(name)) errs.push(field.invalid(child(ip, 'name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(dp)) errs.push(field.invalid(child(ip, 'devicePath'), dp, 'must not already exist as a path in volumeMounts'));
    if (name.length > 0) devNames.add(name);
  });
  return errs;
}
