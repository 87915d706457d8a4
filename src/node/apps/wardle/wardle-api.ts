/**
 * The wardle.example.com API of k8s.io/sample-apiserver v0.17 (pkg/apis/wardle, pkg/registry,
 * pkg/admission/plugin/banflunder) as pure rules: the served versions and resources (v1beta1,
 * preferred, with flunders; v1alpha1 with flunders and the cluster-scoped fischers; stored as
 * v1alpha1), discovery documents, v1alpha1's defaulting, conversion between the versions,
 * validation, the BanFlunder admission check, the generic server's Status errors and the
 * default Table (Name, Created At).
 */
import { createHash } from 'node:crypto';

export const GROUP = 'wardle.example.com';
export const STORAGE_VERSION = 'v1alpha1';

type Json = Record<string, unknown>;

export interface WardleResource { name: 'flunders' | 'fischers'; kind: 'Flunder' | 'Fischer'; namespaced: boolean; versions: string[] }

export const RESOURCES: WardleResource[] = [
  { name: 'fischers', kind: 'Fischer', namespaced: false, versions: ['v1alpha1'] },
  { name: 'flunders', kind: 'Flunder', namespaced: true, versions: ['v1beta1', 'v1alpha1'] },
];

/** Versions by priority (scheme.SetVersionPriority(v1beta1, v1alpha1)). */
export const VERSIONS = ['v1beta1', 'v1alpha1'];

export const resourceOf = (version: string, name: string) => RESOURCES.find((r) => r.name === name && r.versions.includes(version));

/** discovery.StorageVersionHash: the first 8 bytes of sha256("group/version/kind"), base64. */
export const discoveryStorageVersionHash = (group: string, version: string, kind: string) =>
  createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');

/** A wardle kind's hash: it is stored as v1alpha1. */
export const storageVersionHash = (kind: string) => discoveryStorageVersionHash(GROUP, STORAGE_VERSION, kind);

const versionRef = (v: string) => ({ groupVersion: `${GROUP}/${v}`, version: v });

export function apiGroup(): Json {
  return { name: GROUP, versions: VERSIONS.map(versionRef), preferredVersion: versionRef(VERSIONS[0]!) };
}

export const apiGroupList = (): Json => ({ kind: 'APIGroupList', apiVersion: 'v1', groups: [apiGroup()] });
export const apiGroupDoc = (): Json => ({ kind: 'APIGroup', apiVersion: 'v1', ...apiGroup() });

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function apiResourceList(version: string): Json | undefined {
  if (!VERSIONS.includes(version)) return undefined;
  return {
    kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${GROUP}/${version}`,
    resources: RESOURCES.filter((r) => r.versions.includes(version)).map((r) => ({
      name: r.name, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: VERBS, storageVersionHash: storageVersionHash(r.kind),
    })),
  };
}

/** SetDefaults_FlunderSpec (v1alpha1): a reference without a type refers to a Flunder. */
export function defaultV1alpha1(obj: Json): void {
  if (obj.kind !== 'Flunder') return;
  const spec = (obj.spec ?? {}) as Json;
  if (!spec.referenceType && typeof spec.reference === 'string' && spec.reference !== '') spec.referenceType = 'Flunder';
  obj.spec = spec;
}

/** The internal FlunderSpec of a served version's spec. */
export function internalSpec(version: string, spec: Json): { flunderReference: string; fischerReference: string; referenceType: string } {
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  if (version === 'v1beta1') return { flunderReference: str(spec.flunderReference), fischerReference: str(spec.fischerReference), referenceType: str(spec.referenceType) };
  const t = str(spec.referenceType);
  return {
    referenceType: t === 'Flunder' || t === 'Fischer' ? t : '',
    flunderReference: t === 'Flunder' ? str(spec.reference) : '',
    fischerReference: t === 'Fischer' ? str(spec.reference) : '',
  };
}

/** A served version's spec of the internal one. */
export function versionedSpec(version: string, s: ReturnType<typeof internalSpec>): Json {
  if (version === 'v1beta1') {
    return { ...(s.flunderReference ? { flunderReference: s.flunderReference } : {}), ...(s.fischerReference ? { fischerReference: s.fischerReference } : {}), ...(s.referenceType ? { referenceType: s.referenceType } : {}) };
  }
  if (s.referenceType === 'Flunder') return { ...(s.flunderReference ? { reference: s.flunderReference } : {}), referenceType: 'Flunder' };
  if (s.referenceType === 'Fischer') return { ...(s.fischerReference ? { reference: s.fischerReference } : {}), referenceType: 'Fischer' };
  return {};
}

/** An object of one version in another (metadata kept; only a Flunder's spec differs between versions). */
export function convertObject(obj: Json, from: string, to: string): Json {
  const out: Json = { ...obj, apiVersion: `${GROUP}/${to}` };
  if (obj.kind === 'Flunder' && from !== to) out.spec = versionedSpec(to, internalSpec(from, (obj.spec ?? {}) as Json));
  return out;
}

/** Go's %q of a string in a field error. */
const q = (s: string) => JSON.stringify(s);

/** validation.ValidateFlunderSpec on the internal spec: field error texts. */
export function validateFlunder(s: ReturnType<typeof internalSpec>): string[] {
  const errs: string[] = [];
  if (s.flunderReference && s.fischerReference) errs.push(`spec.fischerReference: Invalid value: ${q(s.fischerReference)}: cannot be set with flunderReference at the same time`);
  else if (s.flunderReference && s.referenceType !== 'Flunder') errs.push(`spec.flunderReference: Invalid value: ${q(s.flunderReference)}: cannot be set if referenceType is not Flunder`);
  else if (s.fischerReference && s.referenceType !== 'Fischer') errs.push(`spec.fischerReference: Invalid value: ${q(s.fischerReference)}: cannot be set if referenceType is not Fischer`);
  else if (!s.fischerReference && s.referenceType === 'Fischer') errs.push(`spec.fischerReference: Invalid value: "": cannot be empty if referenceType is Fischer`);
  else if (!s.flunderReference && s.referenceType === 'Flunder') errs.push(`spec.flunderReference: Invalid value: "": cannot be empty if referenceType is Flunder`);
  if (s.referenceType && s.referenceType !== 'Fischer' && s.referenceType !== 'Flunder') errs.push(`spec.referenceType: Invalid value: ${q(s.referenceType)}: must be Flunder or Fischer`);
  return errs;
}

/** ValidateObjectMeta's name rules with path.ValidatePathSegmentName. */
export function validateName(name: string, generateName: string): string[] {
  if (!name && !generateName) return ['metadata.name: Required value: name or generateName is required'];
  const msgs: string[] = [];
  const check = (n: string, prefix: boolean) => {
    if (!prefix && (n === '.' || n === '..')) msgs.push(`may not be '${n}'`);
    for (const bad of ['/', '%']) if (n.includes(bad)) msgs.push(`may not contain '${bad}'`);
  };
  if (name) check(name, false);
  if (msgs.length) return [`metadata.name: Invalid value: ${q(name)}: ${msgs.join(', ')}`];
  return [];
}

/** BanFlunder: a Flunder whose name a Fischer disallows is forbidden. */
export function bannedBy(fischers: Json[], flunderName: string): boolean {
  return fischers.some((f) => Array.isArray(f.disallowedFlunders) && (f.disallowedFlunders as unknown[]).includes(flunderName));
}

export interface StatusError { code: number; reason: string; message: string; details?: Json }

/** A Status as the generic server writes it. */
export function statusBody(e: StatusError): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: e.message, reason: e.reason, ...(e.details ? { details: e.details } : {}), code: e.code };
}

const qualified = (resource: string) => `${resource}.${GROUP}`;
const details = (resource: string, name: string) => ({ ...(name ? { name } : {}), group: GROUP, kind: resource });

export const notFound = (resource: string, name: string): StatusError => ({ code: 404, reason: 'NotFound', message: `${qualified(resource)} ${q(name)} not found`, details: details(resource, name) });
export const alreadyExists = (resource: string, name: string): StatusError => ({ code: 409, reason: 'AlreadyExists', message: `${qualified(resource)} ${q(name)} already exists`, details: details(resource, name) });
export const conflict = (resource: string, name: string): StatusError => ({
  code: 409, reason: 'Conflict', details: details(resource, name),
  message: `Operation cannot be fulfilled on ${qualified(resource)} ${q(name)}: the object has been modified; please apply your changes to the latest version and try again`,
});
export const banned = (resource: string, name: string): StatusError => ({
  code: 403, reason: 'Forbidden', details: details(resource, name), message: `${qualified(resource)} ${q(name)} is forbidden: this name may not be used, please change the resource name`,
});

/** errors.NewInvalid: the kind, the name and the field errors. */
export function invalid(kind: string, name: string, causes: string[]): StatusError {
  const list = causes.length === 1 ? causes[0]! : `[${causes.join(', ')}]`;
  return {
    code: 422, reason: 'Invalid', message: `${kind}.${GROUP} ${q(name)} is invalid: ${list}`,
    details: {
      name, group: GROUP, kind,
      causes: causes.map((c) => {
        const i = c.indexOf(': ');
        const rest = c.slice(i + 2);
        return { reason: rest.startsWith('Required value') ? 'FieldValueRequired' : 'FieldValueInvalid', message: rest, field: c.slice(0, i) };
      }),
    },
  };
}

export const badRequest = (message: string): StatusError => ({ code: 400, reason: 'BadRequest', message });

/** The default TableConvertor's columns (rest.NewDefaultTableConvertor), ObjectMeta's field docs as descriptions. */
const COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names', priority: 0 },
  { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/api-conventions.md#metadata', priority: 0 },
];

/** A Table of objects, each row's object the object's metadata (includeObject=Metadata, the default). */
export function table(objects: Json[], listMeta: Json): Json {
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: listMeta, columnDefinitions: COLUMNS,
    rows: objects.map((o) => {
      const meta = (o.metadata ?? {}) as Json;
      return { cells: [meta.name ?? '', meta.creationTimestamp ?? null], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta } };
    }),
  };
}

/** Whether the Accept header asks for a meta.k8s.io/v1 Table (kubectl get's first choice). */
export const wantsTable = (accept: string) => accept.split(',').some((c) => /;\s*as=Table/.test(c) && /;\s*g=meta\.k8s\.io/.test(c) && /;\s*v=v1(?:;|$|\s)/.test(c));

/** The metadata fields in ObjectMeta's order, as encoding/json writes the struct. */
const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'clusterName', 'managedFields'];

/** An object in the field order its Go type has (TypeMeta, ObjectMeta, then the kind's own fields). */
export function ordered(obj: Json): Json {
  const meta = (obj.metadata ?? {}) as Json;
  const m: Json = {};
  for (const k of META_ORDER) if (meta[k] !== undefined) m[k] = meta[k];
  if (obj.kind === 'Flunder') return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: m, spec: obj.spec ?? {}, status: obj.status ?? {} };
  return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: m, ...(Array.isArray(obj.disallowedFlunders) && obj.disallowedFlunders.length ? { disallowedFlunders: obj.disallowedFlunders } : {}) };
}
