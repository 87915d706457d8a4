/**
 * PersistentVolume and PersistentVolumeClaim validation, the basics of
 * v1.32's ValidatePersistentVolumeSpec / ValidatePersistentVolumeClaimSpec:
 * access modes, capacity or requested storage, reclaim policy, one volume
 * source (hostPath, nfs, local and csi checked in detail, the others
 * counted), class names, volume mode, data sources; on update the
 * immutable parts. Not ported: the other sources' field rules and the
 * diff upstream appends to a PV's "persistentvolumesource is immutable".
 */
import { field, type FieldError } from '../apimachinery/field-errors.js';
import { cmpQuantity, formatQuantity, parseQuantity, type Quantity } from '../apimachinery/quantity.js';
import {
  arr, deepEqual, dns1123Subdomain, immutableScalar, isObj, labelSelectorHasInvalidLabelValue, metaCreate, metaUpdate,
  nameIsDNSLabel, nameIsDNSSubdomain, raw, str, validateLabelSelector, type Obj, withStatus,
} from './common.js';
import { quantityOf, validateResourceQuantityValue } from './resources.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import { cmpDiff } from './go-cmp.js';
import { convert, goSyntaxOf, goType } from './go-types.js';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
const ZERO = parseQuantity('0');

/** The PersistentVolumeSource fields in upstream's checking order, with the name its "more than 1" error uses. */
const PV_SOURCES: [string, string][] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'],
  ['glusterfs', 'glusterfs'], ['flocker', 'flocker'], ['nfs', 'nfs'], ['rbd', 'rbd'], ['quobyte', 'quobyte'],
  ['cephfs', 'cephFS'], ['iscsi', 'iscsi'], ['cinder', 'cinder'], ['fc', 'fc'], ['flexVolume', 'flexVolume'],
  ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['photonPersistentDisk', 'photonPersistentDisk'],
  ['portworxVolume', 'portworxVolume'], ['azureDisk', 'azureDisk'], ['scaleIO', 'scaleIO'], ['local', 'local'],
  ['storageos', 'storageos'], ['csi', 'csi'],
];

function noBacksteps(target: string, path: string): FieldError[] {
  return target.split(/[\\/]/).includes('..') ? [field.invalid(path, target, "must not contain '..'")] : [];
}

/** Quantity.Value(): the integer value, fractions rounded away from zero. */
function quantityValue(q: Quantity): number {
  const mag = q.scale >= 0 ? q.unscaled * 10n ** BigInt(q.scale)
    : (q.unscaled + 10n ** BigInt(-q.scale) - 1n) / 10n ** BigInt(-q.scale);
  return Number(q.neg ? -mag : mag);
}

/** validateAccessModes part of the PV and PVC spec checks. */
function validateAccessModes(modes: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let rwop = false;
  let other = false;
  for (const m of arr(modes).map(str)) {
    if (!ACCESS_MODES.includes(m)) errs.push(field.notSupported(path, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') rwop = true;
    else if (ACCESS_MODES.includes(m)) other = true;
  }
  if (rwop && other) errs.push(field.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** ValidateCSIDriverName */
function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!name) errs.push(field.required(path));
  if (name.length > 63) errs.push(field.tooLong(path, 63));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(field.invalid(path, name, m));
  return errs;
}

function validateSource(key: string, s: Obj, path: string): FieldError[] {
  switch (key) {
    case 'hostPath': {
      if (!str(s.path)) return [field.required(`${path}.path`)];
      const errs = noBacksteps(str(s.path), `${path}.path`);
      if (s.type != null && !HOST_PATH_TYPES.includes(str(s.type))) errs.push(field.notSupported(`${path}.type`, str(s.type), HOST_PATH_TYPES));
      return errs;
    }
    case 'nfs': {
      const errs: FieldError[] = [];
      if (!str(s.server)) errs.push(field.required(`${path}.server`));
      if (!str(s.path)) errs.push(field.required(`${path}.path`));
      if (!str(s.path).startsWith('/')) errs.push(field.invalid(`${path}.path`, str(s.path), 'must be an absolute path'));
      return errs;
    }
    case 'local':
      return str(s.path) ? noBacksteps(str(s.path), `${path}.path`) : [field.required(`${path}.path`)];
    case 'csi': {
      const errs = validateCSIDriverName(str(s.driver), `${path}.driver`);
      if (!str(s.volumeHandle)) errs.push(field.required(`${path}.volumeHandle`));
      return errs;
    }
    default:
      return [];
  }
}

/** ValidatePersistentVolumeSpec (not inline). */
function validatePersistentVolumeSpec(pv: Obj): FieldError[] {
  const spec: Obj = isObj(pv.spec) ? pv.spec : {};
  const errs: FieldError[] = [];
  if (!arr(spec.accessModes).length) errs.push(field.required('spec.accessModes'));
  errs.push(...validateAccessModes(spec.accessModes, 'spec.accessModes'));
  const capacity: Obj = isObj(spec.capacity) ? spec.capacity : {};
  const keys = Object.keys(capacity);
  if (!keys.length) errs.push(field.required('spec.capacity'));
  if (!('storage' in capacity) || keys.length > 1) {
    errs.push(field.notSupported('spec.capacity', raw(keys.length ? goSyntaxOf('core.ResourceList', capacity) : 'core.ResourceList(nil)'), ['storage']));
  }
  for (const k of keys) {
    const q = quantityOf(capacity[k]);
    if (!q) continue;
    if (q.neg && q.unscaled !== 0n) errs.push(field.invalid(`spec.capacity[${k}]`, quantityValue(q), 'must be a valid resource quantity'));
    if (cmpQuantity(q, ZERO) <= 0) errs.push(field.invalid(`spec.capacity[${k}]`, formatQuantity(q), 'must be greater than zero'));
  }
  const rp = str(spec.persistentVolumeReclaimPolicy);
  if (rp && !RECLAIM_POLICIES.includes(rp)) errs.push(field.notSupported('spec.persistentVolumeReclaimPolicy', rp, RECLAIM_POLICIES));
  let nodeAffinity = false;
  if (spec.nodeAffinity != null) {
    nodeAffinity = true;
    if (!isObj(spec.nodeAffinity) || spec.nodeAffinity.required == null) {
      errs.push(field.required('spec.nodeAffinity.required', 'must specify required node constraints'));
    }
  }
  let n = 0;
  for (const [key, name] of PV_SOURCES) {
    if (spec[key] == null) continue;
    if (n > 0 && key !== 'flexVolume') {
      errs.push(field.forbidden(`spec.${name}`, 'may not specify more than 1 volume type'));
      continue;
    }
    n++;
    const pathName = key === 'gcePersistentDisk' ? 'persistentDisk' : key;
    errs.push(...validateSource(key, isObj(spec[key]) ? spec[key] : {}, `spec.${pathName}`));
    if (key === 'local' && !nodeAffinity) errs.push(field.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (n === 0) errs.push(field.required('spec', 'must specify a volume type'));
  if (isObj(spec.hostPath) && str(spec.hostPath.path).replace(/\/+$/, '') === '' && str(spec.hostPath.path).startsWith('/') && rp === 'Recycle') {
    errs.push(field.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (str(spec.storageClassName)) errs.push(...dns1123Subdomain(str(spec.storageClassName), 'spec.storageClassName'));
  if (spec.volumeMode != null && !VOLUME_MODES.includes(str(spec.volumeMode))) {
    errs.push(field.notSupported('spec.volumeMode', str(spec.volumeMode), VOLUME_MODES));
  }
  return errs;
}

const validatePersistentVolume = (pv: Obj) => [...metaCreate(pv, false, nameIsDNSSubdomain), ...validatePersistentVolumeSpec(pv)];

const SOURCE_KEYS = PV_SOURCES.map(([k]) => k);

/** ValidatePersistentVolumeUpdate's own checks. */
function validatePersistentVolumeUpdate(pv: Obj, old: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const pick = (s: Obj) => Object.fromEntries(SOURCE_KEYS.map((k) => [k, s?.[k]]));
  const n = pick(pv.spec ?? {});
  const o = pick(old.spec ?? {});
  // A controllerExpandSecretRef may be added to a CSI source that had none.
  if (isObj(o.csi) && o.csi.controllerExpandSecretRef == null && isObj(n.csi) && n.csi.controllerExpandSecretRef != null) {
    n.csi = { ...n.csi };
    delete n.csi.controllerExpandSecretRef;
  }
  if (!deepEqual(n, o)) errs.push(field.forbidden('spec.persistentvolumesource', 'spec.persistentvolumesource is immutable after creation'));
  errs.push(...immutableScalar(pv.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  if (old.spec?.nodeAffinity != null && !deepEqual(pv.spec?.nodeAffinity, old.spec.nodeAffinity)) {
    errs.push(field.invalid('nodeAffinity', raw('&core.VolumeNodeAffinity{...}'), 'field is immutable, except for updating from beta label to GA'));
  }
  return errs;
}

export const persistentVolumeValidation = withStatus({
  validate: validatePersistentVolume,
  validateUpdate: (pv: Obj, old: Obj) => [
    ...validatePersistentVolume(pv), ...validatePersistentVolume(pv), ...validatePersistentVolumeUpdate(pv, old), ...metaUpdate(pv, old),
  ],
});

// ---------------------------------------------------------------------------
// PersistentVolumeClaim

function validateDataSource(ds: Obj, path: string, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!str(ds.name)) errs.push(field.required(`${path}.name`));
  if (!str(ds.kind)) errs.push(field.required(`${path}.kind`));
  const group = str(ds.apiGroup);
  if (!group && str(ds.kind) !== 'PersistentVolumeClaim') {
    errs.push(field.invalid(path, str(ds.kind), "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (group) errs.push(...dns1123Subdomain(group, `${path}.apiGroup`));
  if (namespaced && str(ds.namespace)) {
    for (const m of nameIsDNSLabel(str(ds.namespace), false)) errs.push(field.invalid(`${path}.namespace`, str(ds.namespace), m));
  }
  return errs;
}

/** ValidatePersistentVolumeClaimSpec */
export function validatePersistentVolumeClaimSpec(spec: Obj, path: string, allowInvalidLabelValue: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!arr(spec.accessModes).length) errs.push(field.required(`${path}.accessModes`, 'at least 1 access mode is required'));
  if (spec.selector != null) {
    errs.push(...validateLabelSelector(spec.selector, { allowInvalidLabelValueInSelector: allowInvalidLabelValue }, `${path}.selector`));
  }
  errs.push(...validateAccessModes(spec.accessModes, `${path}.accessModes`));
  const requests: Obj = isObj(spec.resources?.requests) ? spec.resources.requests : {};
  const sp = `${path}.resources[storage]`;
  if (!('storage' in requests)) errs.push(field.required(sp));
  else {
    const q = quantityOf(requests.storage);
    if (q && cmpQuantity(q, ZERO) <= 0) errs.push(field.invalid(sp, formatQuantity(q), 'must be greater than zero'));
    else if (q) errs.push(...validateResourceQuantityValue('storage', q, sp));
  }
  if (str(spec.storageClassName)) errs.push(...dns1123Subdomain(str(spec.storageClassName), `${path}.storageClassName`));
  if (spec.volumeMode != null && !VOLUME_MODES.includes(str(spec.volumeMode))) {
    errs.push(field.notSupported(`${path}.volumeMode`, str(spec.volumeMode), VOLUME_MODES));
  }
  if (isObj(spec.dataSource)) errs.push(...validateDataSource(spec.dataSource, `${path}.dataSource`, false));
  if (isObj(spec.dataSourceRef)) errs.push(...validateDataSource(spec.dataSourceRef, `${path}.dataSourceRef`, true));
  if (isObj(spec.dataSourceRef) && str(spec.dataSourceRef.namespace)) {
    if (isObj(spec.dataSource)) errs.push(field.invalid(path, raw(`${path}.dataSource`), 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (isObj(spec.dataSource) && isObj(spec.dataSourceRef)) {
    const a = spec.dataSource;
    const b = spec.dataSourceRef;
    if ((a.apiGroup ?? null) !== (b.apiGroup ?? null) || str(a.kind) !== str(b.kind) || str(a.name) !== str(b.name)) {
      errs.push(field.invalid(path, raw(`${path}.dataSource`), 'must match dataSourceRef'));
    }
  }
  return errs;
}

const validateClaim = (pvc: Obj, allowInvalid: boolean) =>
  [...metaCreate(pvc, true, nameIsDNSSubdomain), ...validatePersistentVolumeClaimSpec(isObj(pvc.spec) ? pvc.spec : {}, 'spec', allowInvalid)];

const BETA_CLASS = 'volume.beta.kubernetes.io/storage-class';

/** ValidatePersistentVolumeClaimUpdate */
function validateClaimUpdate(pvc: Obj, old: Obj): FieldError[] {
  const allowInvalid = labelSelectorHasInvalidLabelValue(old.spec?.selector);
  const errs = [...metaUpdate(pvc, old), ...validateClaim(pvc, allowInvalid)];
  const n: Obj = structuredClone(isObj(pvc.spec) ? pvc.spec : {});
  const o: Obj = structuredClone(isObj(old.spec) ? old.spec : {});
  // volumeName may be set once.
  if (!str(o.volumeName)) { if (n.volumeName == null) delete o.volumeName; else o.volumeName = n.volumeName; }
  const oldAnn = old.metadata?.annotations ?? {};
  const newAnn = pvc.metadata?.annotations ?? {};
  // The storage class may move from the beta annotation to the field, or be set from nil once.
  const fromAnnotation = BETA_CLASS in oldAnn && o.storageClassName == null && n.storageClassName != null &&
    n.storageClassName === oldAnn[BETA_CLASS] && (!(BETA_CLASS in newAnn) || newAnn[BETA_CLASS] === oldAnn[BETA_CLASS]);
  if (fromAnnotation) delete n.storageClassName;
  else {
    if (str(newAnn[BETA_CLASS]) !== str(oldAnn[BETA_CLASS])) {
      errs.push(field.invalid(`metadata.annotations.${BETA_CLASS}`, str(newAnn[BETA_CLASS]), 'field is immutable'));
    }
    if (!(BETA_CLASS in oldAnn) && o.storageClassName == null && n.storageClassName != null) n.storageClassName = o.storageClassName;
  }
  if (pvc.status?.phase === 'Bound' && isObj(n.resources?.requests)) n.resources.requests.storage = old.spec?.resources?.requests?.storage;
  n.volumeAttributesClassName = o.volumeAttributesClassName;
  if (!deepEqual(n, o)) {
    const t = goType('core.PersistentVolumeClaimSpec');
    errs.push(field.forbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n' +
      cmpDiff(t, convert(t, o), convert(t, n))));
  }
  const oldSize = quantityOf(old.spec?.resources?.requests?.storage) ?? ZERO;
  const newSize = quantityOf(pvc.spec?.resources?.requests?.storage) ?? ZERO;
  if (cmpQuantity(newSize, oldSize) < 0) {
    errs.push(field.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  }
  errs.push(...immutableScalar(pvc.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  return errs;
}

export const persistentVolumeClaimValidation = withStatus({
  validate: (pvc: Obj) => validateClaim(pvc, false),
  // The strategy runs ValidatePersistentVolumeClaim, then ValidatePersistentVolumeClaimUpdate.
  validateUpdate: (pvc: Obj, old: Obj) => [...validateClaim(pvc, labelSelectorHasInvalidLabelValue(old.spec?.selector)), ...validateClaimUpdate(pvc, old)],
});
