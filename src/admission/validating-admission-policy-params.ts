/**
 * The parameter objects a binding gives its policy (k8s.io/apiserver pkg/admission/plugin/policy/
 * generic/policy_dispatcher.go CollectParams, and policy_source.go ensureParamsForPolicyLocked for
 * resolving paramKind, v1.32), with upstream's error texts.
 */
import type { ParamKind, ParamRef } from 'kubernetes-types/admissionregistration/v1.js';
import type { KObject } from '../apimachinery/object.js';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { labelSelectorAsSelector } from '../validation/common.js';
import { listAll, type Lookup } from './lookup.js';

/** A configuration error: the policy or binding cannot be applied (the failure policy decides). */
export class PolicyConfigurationError extends Error {}

/** schema.GroupVersionKind.String() of a paramKind. */
function gvkString(pk: ParamKind): string {
  const apiVersion = pk.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${pk.kind ?? ''}`;
}

/** The served resource of a paramKind (the RESTMapper's mapping), or the policy's configuration error. */
export function paramResource(pk: ParamKind, lookup: Lookup): ResourceInfo | PolicyConfigurationError {
  const apiVersion = pk.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const def = (lookup.defs ?? []).find((d) => d.group === group && d.version === version && d.kind === pk.kind);
  return def ?? new PolicyConfigurationError(`failed to find resource referenced by paramKind: '${gvkString(pk)}'`);
}

/**
 * CollectParams: [null] when the policy takes no parameters or the binding names none, else the
 * objects the binding's paramRef selects (none at all: the binding is skipped, or refused with `Deny`).
 */
export async function collectParams(paramKind: ParamKind | undefined, resource: ResourceInfo | undefined, paramRef: ParamRef | undefined,
  namespace: string, lookup: Lookup): Promise<(KObject | null)[]> {
  if (!paramKind || !paramRef || !resource) return [null];
  let paramsNamespace = '';
  if (resource.namespaced) {
    paramsNamespace = paramRef.namespace || namespace;
    if (!paramsNamespace) throw new PolicyConfigurationError('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  } else if (paramRef.namespace) {
    throw new PolicyConfigurationError('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
  }
  let params: KObject[];
  if (paramRef.name) {
    if (paramRef.selector) throw new PolicyConfigurationError('paramRef.name and paramRef.selector are mutually exclusive');
    const p = await lookup.get(resource.group, resource.resource, paramsNamespace, paramRef.name);
    params = p ? [p] : [];
  } else if (paramRef.selector) {
    const selector = labelSelectorAsSelector(paramRef.selector);
    if (!selector) throw new PolicyConfigurationError('invalid paramRef selector');
    params = (await listAll(lookup, resource.group, resource.resource, paramsNamespace)).filter((p) => selector.matches(p.metadata?.labels ?? {}));
  } else {
    throw new PolicyConfigurationError('one of name or selector must be provided');
  }
  if (!params.length && paramRef.parameterNotFoundAction === 'Deny') {
    throw new PolicyConfigurationError('no params found for policy binding with `Deny` parameterNotFoundAction');
  }
  return params;
}
