import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceDef } from '../registry/types.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { Store } from '../registry/store.js';
import { cloneDecoded } from '../registry/codec.js';
import { formatLabelSelector, fromLabelSelector } from '../selectors/labels.js';
import { rfc3339 } from '../meta/object-meta.js';
import { decodeObject, mediaType, readBody } from './body.js';
import { checkPatchBody } from './patch-body.js';
import { checkPatchedGoTypes } from '../openapi/patched-types.js';
import { fieldValidationOf } from '../openapi/field-validation.js';
import type { Shape } from './negotiate.js';
import { applyPatchRequest } from './patch.js';
import { writeJSON } from './respond.js';
import { errors, StatusError } from '../apimachinery/errors.js';
import { TOKEN_ISSUER, type BoundObjects, type ServiceAccountTokens } from '../pki/service-account-tokens.js';

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

function success(res: ServerResponse, code: number): void {
  writeJSON(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code });
}

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
  if (req.method === 'GET') return writeJSON(res, 200, toScale(await store.read(def, namespace, name)));
  if (req.method !== 'PUT' && req.method !== 'PATCH') throw errors.methodNotAllowed();
  const wc = ctx.writeContext(req.method === 'PUT' ? 'UpdateOptions' : 'PatchOptions');
  const raw = await readBody(req);
  const ct = mediaType(req.headers['content-type']);
  const scaleDef = { ...def, group: 'autoscaling', version: 'v1', kind: 'Scale' };
  if (req.method === 'PATCH') checkPatchBody(ct, raw.toString('utf8'), fieldValidationOf(ctx.url.searchParams, 'PatchOptions'));
  const updated = await store.update(def, namespace, name, (cur: any) => {
    const current = toScale(cur);
    let next: any;
    if (req.method === 'PUT') {
      next = decodeObject(raw, req.headers['content-type'], 'Scale', scaleDef);
    } else {
      next = applyPatchRequest(ct, current, raw.toString('utf8'), scaleDef);
      checkPatchedGoTypes(scaleDef, ct, raw.toString('utf8'), next);
    }
    const rv = next.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) cur.metadata.resourceVersion = rv;
    cur.spec = { ...cur.spec, replicas: next.spec?.replicas ?? 0 };
    return cur;
  }, wc);
  writeJSON(res, 200, toScale(updated));
}

/** pods/binding: assigns a node to a pod that has none. */
async function binding(ctx: SubresourceContext): Promise<void> {
  const { store, def, namespace, name, req, res } = ctx;
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const wc = ctx.writeContext('CreateOptions');
  const body = decodeObject(await readBody(req), req.headers['content-type'], 'Binding', { group: '', version: 'v1', kind: 'Binding' }) as any;
  const node = body.target?.name;
  if (!node) {
    throw errors.invalid({ group: '', kind: 'Binding' }, name, [{ type: 'FieldValueRequired', field: 'target.name', detail: '' }]);
  }
  await assignNode(store, def, namespace, name, node, wc);
  success(res, 201);
}

export async function assignNode(store: Store, def: ResourceDef, namespace: string, name: string, node: string,
  wc: WriteContext): Promise<void> {
  await store.update(def, namespace, name, (pod: any) => {
    if (pod.metadata.deletionTimestamp) {
      throw errors.conflict({ group: '', resource: 'pods' }, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    }
    if (pod.spec.nodeName) {
      throw errors.conflict({ group: '', resource: 'pods' }, name, `pod ${name} is already assigned to node "${pod.spec.nodeName}"`);
    }
    pod.spec.nodeName = node;
    const conditions = (pod.status.conditions ?? []).filter((c: any) => c.type !== 'PodScheduled');
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(wc.now) });
    pod.status.conditions = conditions;
    return pod;
  }, wc, 'binding');
}

/** pods/eviction: deletes the pod unless a PodDisruptionBudget forbids it. */
async function eviction(ctx: SubresourceContext): Promise<void> {
  const { store, def, namespace, name, req, res } = ctx;
  if (req.method !== 'POST') throw errors.methodNotAllowed();
  const raw = await readBody(req);
  const body = raw.length ? decodeObject(raw, req.headers['content-type'], 'Eviction', { group: 'policy', version: 'v1', kind: 'Eviction' }) as any : {};
  const pod: any = await store.read(def, namespace, name);
  const pdbDef = store.find('policy', 'v1', 'poddisruptionbudgets');
  const wc = ctx.writeContext('DeleteOptions');
  // canIgnorePDB: terminal, pending and terminating pods are not counted by any budget.
  const ignorePDB = ['Succeeded', 'Failed', 'Pending'].includes(pod.status?.phase) || !!pod.metadata.deletionTimestamp;
  if (pdbDef && !ignorePDB) {
    const pdbs = (await store.list(pdbDef, namespace)).items.filter((p: any) =>
      fromLabelSelector(p.spec?.selector)?.matches(pod.metadata.labels) && p.spec?.selector);
    if (pdbs.length > 1) {
      throw errors.internal('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
    }
    const pdb: any = pdbs[0];
    if (pdb && !(await evictionAllowedByBudget(ctx, pdbDef, pdb, pod, wc))) return;
  }
  const opts = body.deleteOptions ?? {};
  await store.delete(def, namespace, name, {
    gracePeriodSeconds: opts.gracePeriodSeconds, propagationPolicy: opts.propagationPolicy, preconditions: opts.preconditions,
  }, wc);
  success(res, 201);
}

function tooManyRequests(res: ServerResponse, cause: string): void {
  writeJSON(res, 429, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'Cannot evict pod as it would violate the pod\'s disruption budget.',
    reason: 'TooManyRequests',
    details: { causes: [{ reason: 'DisruptionBudget', message: cause }] },
    code: 429,
  });
}

/**
 * The budget check of the eviction REST storage (pkg/registry/core/pod/storage/eviction.go):
 * an unready pod may go while the budget is met (IfHealthyBudget) or always (AlwaysAllow);
 * otherwise a disruption is taken from status.disruptionsAllowed and the pod recorded in
 * disruptedPods, in one conditional write, so concurrent evictions (kubectl drain) cannot
 * overdraw the budget. False means the 429 was written.
 */
async function evictionAllowedByBudget(ctx: SubresourceContext, pdbDef: ResourceDef, pdb: any, pod: any, wc: WriteContext): Promise<boolean> {
  const ready = (pod.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c.status === 'True');
  if (!ready) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === 'AlwaysAllow') return true;
    const st = pdb.status ?? {};
    if ((st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0) return true;
  }
  for (let attempt = 0; ; attempt++) {
    const cur: any = attempt === 0 ? pdb : await ctx.store.read(pdbDef, pdb.metadata.namespace, pdb.metadata.name);
    const st = cur.status ?? {};
    if ((st.observedGeneration ?? 0) < (cur.metadata.generation ?? 0)) {
      tooManyRequests(ctx.res, `The disruption budget ${cur.metadata.name} is still being processed by the server.`);
      return false;
    }
    if ((st.disruptionsAllowed ?? 0) < 0) {
      throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, cur.metadata.name, 'pdb disruptions allowed is negative');
    }
    if (Object.keys(st.disruptedPods ?? {}).length > 2000) {
      throw errors.forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, cur.metadata.name,
        'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if ((st.disruptionsAllowed ?? 0) === 0) {
      tooManyRequests(ctx.res, `The disruption budget ${cur.metadata.name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently`);
      return false;
    }
    if (wc.dryRun) return true;
    try {
      await ctx.store.update(pdbDef, cur.metadata.namespace, cur.metadata.name, (p: any) => {
        p.metadata.resourceVersion = cur.metadata.resourceVersion;
        const next = { ...(p.status ?? {}) };
        next.disruptionsAllowed = (next.disruptionsAllowed ?? 0) - 1;
        if (next.disruptionsAllowed === 0) {
          next.conditions = (next.conditions ?? []).map((c: any) => (c?.type === 'DisruptionAllowed'
            ? { ...c, status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: next.observedGeneration,
              lastTransitionTime: c.status === 'False' ? c.lastTransitionTime : rfc3339(wc.now) } : c));
        }
        next.disruptedPods = { ...(next.disruptedPods ?? {}), [pod.metadata.name]: rfc3339(wc.now) };
        p.status = next;
        return p;
      }, { ...wc, fieldManager: wc.fieldManager }, 'status');
      return true;
    } catch (e) {
      // Someone else took a disruption meanwhile: decide again on the new status.
      if (e instanceof StatusError && e.status.code === 409 && attempt < 20) continue;
      throw e;
    }
  }
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
  const resource = group ? undefined : ({ Pod: 'pods', Secret: 'secrets', Node: 'nodes' } as Record<string, string>)[kind];
  const def = resource ? store.find('', 'v1', resource) : undefined;
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
  ephemeralcontainers: (ctx) => readWrite(ctx, 'ephemeralcontainers'),
  scale,
  binding,
  eviction,
  finalize,
};
