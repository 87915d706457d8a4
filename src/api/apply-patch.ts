/**
 * The apply patch verb (PATCH with `application/apply-patch+yaml`), as
 * upstream's patch handler runs it (handlers/patch.go, applyPatcher):
 * decode the configuration, apply it to the live object through the store,
 * or create the object when there is none.
 */
import { parse as parseYaml } from 'yaml';
import { errors } from '../apimachinery/errors.js';
import type { KObject } from '../apimachinery/object.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import { applyConfiguration } from '../fieldmanager/index.js';
import { rememberAppliedFields } from '../fieldmanager/request.js';
import { isMap } from '../fieldmanager/typed.js';
import { APPLY_PATCH, checkPatchOptions } from '../meta/write-options.js';
import type { Store } from '../registry/store.js';
import type { ResourceDef } from '../registry/types.js';
import { parseBool } from './query.js';

function isStatus(e: unknown, code: number, reason?: string): boolean {
  const s = (e as { status?: { code?: number; reason?: string } }).status;
  return s?.code === code && (reason === undefined || s.reason === reason);
}

/**
 * PATCH with `application/apply-patch+yaml`: applies the configuration,
 * creating the object when it does not exist (201). `ctx` is the request's
 * write context (its fieldManager is the query parameter).
 */
export async function serveApplyPatch(store: Store, def: ResourceDef, namespace: string, name: string, body: string,
  q: URLSearchParams, ctx: WriteContext): Promise<{ code: number; obj: KObject }> {
  checkPatchOptions(APPLY_PATCH, q);
  const force = parseBool(q.get('force'), 'force') ?? false;
  const manager = q.get('fieldManager')!;
  let config: unknown;
  try {
    config = parseYaml(body, { version: '1.1' });
  } catch (e) {
    throw errors.badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (config === null || config === undefined) config = {};
  if (!isMap(config)) {
    throw errors.badRequest(`error decoding YAML: json: cannot unmarshal ${Array.isArray(config) ? 'array' : typeof config} into Go value of type map[string]interface {}`);
  }
  const cfg = config;
  const meta = isMap(cfg.metadata) ? cfg.metadata : undefined;
  if (def.namespaced && typeof meta?.namespace === 'string' && meta.namespace && meta.namespace !== namespace) {
    throw errors.badRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the URL (${namespace})`);
  }
  const sentRV = meta?.resourceVersion;
  const result = (live: KObject | undefined): KObject => {
    const obj = applyConfiguration(def, live, cfg, { manager, force, now: ctx.now });
    // Unless the configuration names one, the result keeps the live object's resourceVersion, as
    // upstream's applyPatcher does: it matches the attempt's object (so it is no precondition a client
    // chose), and kinds that refuse unconditional updates (CRDs, custom resources) accept it.
    if (live && (sentRV === undefined || sentRV === null)) obj.metadata.resourceVersion = live.metadata.resourceVersion;
    rememberAppliedFields(ctx, obj.metadata.managedFields);
    return obj;
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const obj = await store.update(def, namespace, name, (current) => result(current), ctx);
      return { code: 200, obj };
    } catch (e) {
      if (!isStatus(e, 404) || !(e as { status: { details?: { name?: string } } }).status.details?.name) throw e;
    }
    const obj = result(undefined);
    const objName = obj.metadata.name ?? '';
    if (objName !== name) throw errors.badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    try {
      return { code: 201, obj: await store.create(def, namespace, obj, ctx) };
    } catch (e) {
      // Created meanwhile: apply to it.
      if (isStatus(e, 409, 'AlreadyExists') && attempt < 3) continue;
      throw e;
    }
  }
}
