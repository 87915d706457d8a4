import type { ResourceRequest } from './request-info.js';

/** BasicLongRunningRequestCheck's subresources (kube-apiserver's defaults). */
export const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

function truthy(v: string | null): boolean {
  // ListOptions' watch is a bool: the forms strconv.ParseBool accepts as true.
  return v !== null && ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(v);
}

/**
 * Whether a request is long-running (watch, proxy, attach, exec, log, portforward): such requests
 * are not waited for when the server shuts down, and no request timeout applies to them.
 */
export function isLongRunning(info: ResourceRequest, q: URLSearchParams): boolean {
  if (info.watchPath || truthy(q.get('watch'))) return true;
  if (info.subresource === 'proxy' || info.resource === 'proxy') return true;
  return LONG_RUNNING_SUBRESOURCES.has(info.subresource);
}
