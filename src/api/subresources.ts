import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { Store } from '../registry/store.js';
import { pods } from '../registry/core/pods.js';
import { secrets } from '../registry/core/secrets.js';
import { nodes } from '../registry/core/nodes.js';
import { cloneDecoded } from '../registry/codec.js';
import { formatLabelSelector } from '../selectors/labels.js';
import { rfc3339 } from '../apimachinery/time.js';
import { decodeObject, mediaType, readBody } from './body.js';
import { checkPatchBody } from './patch-body.js';
import { checkPatchedGoTypes } from '../openapi/patched-types.js';
import { fieldValidationOf } from '../openapi/field-validation.js';
import type { Shape } from './negotiate.js';
import { applyPatchRequest } from './patch.js';
import { writeJSON } from './respond.js';
import { errors } from '../apimachinery/errors.js';
import { customScalePaths } from '../registry/apiextensions/custom-resource-def.js';
import { customResourceScale, setCustomResourceReplicas } from '../registry/apiextensions/custom-resource-scale.js';
import { TOKEN_ISSUER, type BoundObjects, type ServiceAccountTokens } from '../pki/service-account-tokens.js';
import { admitNodeTokenRequest } from '../admission/node-restriction.js';

export interface SubresourceContext {
  store: Store;
  def: ResourceDef;
  namespace: string;
  name: string;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  shape: Shape;
  respond(code: number, obj: KObject): void;
  writeContext(optionsKind: string): WriteContext;
  tokens: ServiceAccountTokens;
}

type Handler = (ctx: SubresourceContext) => Promise<void>;

/** GET, PUT and PATCH of one part of the object through the generic update path. */
async function readWrite(ctx: SubresourceContext, subresource: string): Promise<void> {
  const { store, def, namespace, name, req } = ctx;
  switch (req.method) {
    case 'GET':
      return ctx.respond(200, await store.read(def, namespace, name));
    case 'PUT': {
      const wc = ctx.writeContext('UpdateOptions');
      const body = decodeObject(await readBody(req), req.headers['content-type'], def.kind, def) as KObject;
      return ctx.respond(200, await store.update(def, namespace, name, () => cloneDecoded(body), wc, subresource));
    }
    case 'PATCH': {
      const wc = ctx.writeContext('PatchOptions');
      const body = (await readBody(req)).toString('utf8');
      const ct = mediaType(req.headers['content-type']);
      checkPatchBody(ct, body, fieldValidationOf(ctx.url.searchParams, 'PatchOptions'));
      return ctx.respond(200, await store.update(def, namespace, name, (cur) => {
        const patched = applyPatchRequest(ct, cur, body, def);
        checkPatchedGoTypes(def, ct, body, patched);
        return patched;
      }, wc, subresource));
    }
    default:
      throw errors.methodNotAllowed();
  }
}

function toScale(obj: any): KObject {
  const selector = obj.spec?.selector;
  return {
    kind: 'Scale', apiVersion: 'autoscaling/v1',
    metadata: {
      name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion, creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: {
      replicas: obj.status?.replicas ?? 0,
      // ReplicationControllers carry a plain map selector; the apps kinds a LabelSelector.
      selector: selector?.matchLabels || selector?.matchExpressions
        ? formatLabelSelector(selector)
        : formatLabelSelector({ matchLabels: selector ?? {} }),
    },
  };
}

/** The Scale subresource (autoscaling/v1): reads and writes spec.replicas. */
async function scale(ctx: SubresourceContext): Promise<void> {
  const { store, def, namespace, name, req, res } = ctx;
  // A custom resource's replicas and selector live at its CRD's paths.
  const custom = customScalePaths(def);
  const scaleOf = (obj: KObject): KObject => (custom ? customResourceScale(obj, custom) : toScale(obj));
  if (req.method === 'GET') return writeJSON(res, 200, scaleOf(await store.read(def, namespace, name)));
  if (req.method !== 'PUT' && req.method !== 'PATCH') throw errors.methodNotAllowed();
  const wc = ctx.writeContext(req.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions');
  const raw = await readBody(req);
  const ct = mediaType(req.headers['content-type']);
  const scaleDef = { ...def, group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (req.method === 'PATCH') checkPatchBody(ct, raw.toString('utf8'), fieldValidationOf(ctx.url.searchParams, 'PatchOptions'));
  const updated = await store.update(def, namespace, name, (cur: any) => {
    const current = scaleOf(cur);
    let next: any;
    if (req.method === 'PUT') {
      next = decodeObject(raw, req.headers['content-type'], 'Scale', scaleDef);
    } else {
      next = applyPatchRequest(ct, current, raw.toString('utf8'), scaleDef);
      checkPatchedGoTypes(scaleDef, ct, raw.toString('utf8'), next);
    }
    const rv = next.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) cur.metadata.resourceVersion = rv;
    if (custom) setCustomResourceReplicas(cur, custom, next.spec?.replicas ?? 0);
    else cur.spec = { ...cur.spec, replicas: next.spec?.replicas ?? 0 };
    return cur;
  }, wc);
  writeJSON(res, 200, scaleOf(updated));
}

/** The POST of a subresource the resource's REST storage writes (pods/binding, pods/eviction): its answer, with the create's 201. */
async function postToStorage(ctx: SubresourceContext, subresource: string, body: KObject, wc: WriteContext): Promise<void> {
  const { def, namespace, name, res } = ctx;
  const write = def.subresourceWrites?.[subresource];
  if (!write) throw errors.notFoundGeneric();
  writeJSON(res, 201, await write(ctx.store, def, namespace, name, body, wc));
}

/** pods/binding: assigns a node to a pod that has none. */
async function binding(ctx: SubresourceContext): Promise<void> {
  const { req } = ctx;
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const wc = ctx.writeContext('CreateOptions');
  const body = decodeObject(await readBody(req), req.headers['content-type'], 'Binding', { group: '', version: 'v1', kind: 'Binding' }) as KObject;
  await postToStorage(ctx, 'binding', body, wc);
}

/** pods/eviction: deletes the pod unless a PodDisruptionBudget forbids it. */
async function eviction(ctx: SubresourceContext): Promise<void> {
  const { req } = ctx;
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const raw = await readBody(req);
  const body = raw.length
    ? decodeObject(raw, req.headers['content-type'], 'Eviction', { group: 'policy', version: 'v1', kind: 'Eviction' }) as KObject
    : { metadata: {} };
  await postToStorage(ctx, 'eviction', body, ctx.writeContext('DeleteOptions'));
}

/** namespaces/finalize: replaces spec.finalizers. */
async function finalize(ctx: SubresourceContext): Promise<void> {
  const { store, def, name, req } = ctx;
  if (req.method !== 'PUT') throw errors.methodNotAllowed();
  const wc = ctx.writeContext('UpdateOptions');
  const body = decodeObject(await readBody(req), req.headers['content-type'], def.kind, def) as any;
  ctx.respond(200, await store.update(def, '', name, (cur: any) => {
    cur.spec = { ...cur.spec, finalizers: body.spec?.finalizers ?? [] };
    return cur;
  }, wc, 'finalize'));
}

/** TokenRequest's spec.boundObjectRef. */
interface BoundObjectRef { kind?: string; apiVersion?: string; name?: string; uid?: string }

/** schema.GroupVersionKind.String() of an apiVersion and kind. */
function gvkString(apiVersion: string, kind: string): string {
  const i = apiVersion.indexOf('/');
  const [group, version] = i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
  return `${group}/${version}, Kind=${kind}`;
}


/** The kinds a service account token may be bound to (TokenRequest's allowed bound object kinds). */
const BINDABLE: Record<string, ResourceDef | undefined> = { Pod: pods, Secret: secrets, Node: nodes };

/**
 * The objects a token is to be bound to (TokenREST.Create): the pod (which must run as the
 * service account, and whose node the token names too), secret or node the reference names,
 * which must exist with the uid it gives.
 */
async function boundObjects(store: Store, namespace: string, account: string, ref: BoundObjectRef): Promise<BoundObjects> {
  const apiVersion = ref.apiVersion ?? '';
  const kind = ref.kind ?? '';
  const name = ref.name ?? '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const def = group ? undefined : BINDABLE[kind];
  if (!def) throw errors.badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
  const obj = await store.read(def, def.namespaced ? namespace : '', name) as KObject & { spec?: { serviceAccountName?: string; nodeName?: string } };
  const bound: BoundObjects = {};
  if (kind === 'Pod') {
    if (obj.spec?.serviceAccountName !== account) {
      throw errors.badRequest(`cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`);
    }
    bound.pod = { name, uid: obj.metadata.uid };
    const nodeName = obj.spec?.nodeName;
    if (nodeName) bound.node = { name: nodeName, uid: (await store.get('', 'nodes', '', nodeName))?.metadata.uid };
  } else {
    bound[kind === 'Secret' ? 'secret' : 'node'] = { name, uid: obj.metadata.uid };
  }
  if (ref.uid && ref.uid !== obj.metadata.uid) {
    throw errors.conflict({ group: '', resource: kind }, name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  return bound;
}

/** serviceaccounts/token: a bound service account token (TokenRequest). */
async function token(ctx: SubresourceContext): Promise<void> {
  const { store, def, namespace, name, req, res } = ctx;
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const wc = ctx.writeContext('CreateOptions');
  const raw = await readBody(req);
  const body = raw.length ? decodeObject(raw, req.headers['content-type'], 'TokenRequest', { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }) as any : {};
  await admitNodeTokenRequest(name, namespace, body.spec?.boundObjectRef ?? null, wc, store);
  const sa = await store.read(def, namespace, name);
  const spec = { audiences: body.spec?.audiences?.length ? body.spec.audiences : [TOKEN_ISSUER],
    expirationSeconds: body.spec?.expirationSeconds ?? 3600, boundObjectRef: body.spec?.boundObjectRef ?? null };
  if (spec.expirationSeconds < 600) {
    throw errors.invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, '',
      [{ type: 'FieldValueInvalid', field: 'spec.expirationSeconds', value: spec.expirationSeconds, detail: 'may not specify a duration less than 10 minutes' }]);
  }
  const bound = spec.boundObjectRef ? await boundObjects(store, namespace, name, spec.boundObjectRef as BoundObjectRef) : {};
  const issued = ctx.tokens.issue(namespace, name, sa.metadata.uid!, spec.audiences, spec.expirationSeconds, wc.now, bound);
  writeJSON(res, 201, {
    kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
    metadata: { name, namespace, creationTimestamp: null }, spec,
    status: { token: issued.token, expirationTimestamp: rfc3339(issued.expires) },
  });
}

export const subresourceHandlers: Record<string, Handler> = {
  token,
  status: (ctx) => readWrite(ctx, 'status'),
  approval: (ctx) => readWrite(ctx, 'approval'),
  ephemeralcontainers: (ctx) => readWrite(ctx, 'ephemeralcontainers'),
  scale,
  binding,
  eviction,
  finalize,
};
