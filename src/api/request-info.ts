/** What a URL addresses, after upstream's RequestInfoFactory. */
export interface ResourceRequest {
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** The legacy `/watch/` path prefix was used. */
  watchPath: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Parses `/api/v1/...` and `/apis/<group>/<version>/...` paths, already percent-decoded (see
 * request-path.ts). As RequestInfoFactory, the path is trimmed of slashes and split at every slash,
 * empty segments included: `namespaces//configmaps` is the namespace "", and a name that was `%2F`
 * leaves no name at all. Returns undefined for anything that does not name a resource.
 */
export function parseResourcePath(pathname: string): ResourceRequest | undefined {
  const parts = pathname.replace(/^\/+|\/+$/g, '').split('/');
  let group: string;
  let version: string;
  let rest: string[];
  const [root, second = '', third = ''] = parts;
  if (root === 'api' && parts.length >= 3) {
    group = ''; version = second; rest = parts.slice(2);
  } else if (root === 'apis' && parts.length >= 4) {
    group = second; version = third; rest = parts.slice(3);
  } else {
    return undefined;
  }
  let watchPath = false;
  if (rest[0] === 'watch') { watchPath = true; rest = rest.slice(1); }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    const [, nsName = '', nsSub] = rest;
    if (rest.length === 2 || (rest.length === 3 && nsSub !== undefined && NAMESPACE_SUBRESOURCES.has(nsSub))) {
      // The namespace object itself (or its status/finalize).
      return { group, version, namespace: '', resource: 'namespaces', name: nsName, subresource: nsSub ?? '', watchPath };
    }
    namespace = nsName;
    rest = rest.slice(2);
  }
  if (rest.length === 0 || rest.length > 3) return undefined;
  const [resource = '', name = '', subresource = ''] = rest;
  return { group, version, namespace, resource, name, subresource, watchPath };
}

/**
 * RequestInfoFactory reads resource, name and subresource and leaves the
 * rest: a proxy path (`.../nodes/NAME/proxy/stats/summary`) is still the
 * resource's proxy subresource, though no other route goes that deep.
 */
export function parseRequestInfo(pathname: string): ResourceRequest | undefined {
  const info = parseResourcePath(pathname);
  if (info) return info;
  for (let i = pathname.indexOf('/proxy/'); i >= 0; i = pathname.indexOf('/proxy/', i + 1)) {
    const head = parseResourcePath(pathname.slice(0, i + '/proxy'.length));
    if (head?.subresource === 'proxy') return head;
  }
  return undefined;
}
