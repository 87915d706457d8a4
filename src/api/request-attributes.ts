/**
 * What the authorizer is asked about a request: RequestInfoFactory.NewRequestInfo
 * (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) and
 * GetAuthorizerAttributes. Any path under /api/<version>/ or
 * /apis/<group>/<version>/ is a resource request, served or not; everything
 * else (discovery, /version, /openapi, /healthz) is a path with the method as
 * its verb.
 */
import type { Attributes, UserInfo } from '../authorization/types.js';
import { decodeListOptions } from './list-options.js';
import { isValidPathSegmentName } from '../validation/common.js';
import { parseFieldSelector, type FieldTerm } from '../selectors/fields.js';

const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function methodVerb(method: string): string {
  switch (method) {
    case 'POST': return 'create';
    case 'GET': case 'HEAD': return 'get';
    case 'PUT': return 'update';
    case 'PATCH': return 'patch';
    case 'DELETE': return 'delete';
    default: return '';
  }
}

/** A list or watch: whether it watches, its field selector, and the name a `metadata.name=` term pins it to. */
function listVerbAndName(q: URLSearchParams): { watch: boolean; name: string; fieldSelector?: readonly FieldTerm[] } {
  try {
    const opts = decodeListOptions(q);
    const term = opts.fieldSelector?.terms.find((t) => t.field === 'metadata.name' && !t.negate);
    const name = term && isValidPathSegmentName(term.value).length === 0 ? term.value : '';
    return { watch: opts.watch, name, fieldSelector: opts.fieldSelector?.terms };
  } catch {
    // Options that do not decode leave a list, or a watch when the watch parameter asks for one.
    const w = q.getAll('watch')[0];
    return { watch: w !== undefined && w !== '0' && w.toLowerCase() !== 'false', name: '' };
  }
}

function fieldSelectorTerms(q: URLSearchParams): readonly FieldTerm[] | undefined {
  const fs = q.get('fieldSelector');
  if (!fs) return undefined;
  try { return parseFieldSelector(fs).terms; } catch { return undefined; }
}

/**
 * The request's attributes. `path` is the URL path as received (percent-decoded,
 * trailing slash kept), as upstream's req.URL.Path.
 */
export function requestAttributes(user: UserInfo, method: string, path: string, q: URLSearchParams): Attributes {
  const attrs: Attributes = {
    user, verb: method.toLowerCase(), resourceRequest: false, path,
    apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '',
  };
  let parts = path.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return attrs;
  const grouped = parts[0] === 'apis';
  parts = parts.slice(1);
  if (grouped) {
    if (parts.length < 3) return attrs;
    attrs.apiGroup = parts[0]!;
    parts = parts.slice(1);
  }
  attrs.resourceRequest = true;
  attrs.apiVersion = parts[0]!;
  parts = parts.slice(1);

  if (SPECIAL_VERBS.has(parts[0]!)) {
    // "/api/v1/watch" alone: upstream fails to build the request info (and answers 500).
    attrs.verb = parts[0]!;
    parts = parts.slice(1);
  } else {
    attrs.verb = methodVerb(method);
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      attrs.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }
  if (parts.length >= 3 && attrs.verb !== 'proxy') attrs.subresource = parts[2]!;
  if (parts.length >= 2) attrs.name = parts[1]!;
  if (parts.length >= 1) attrs.resource = parts[0]!;

  if (!attrs.name && attrs.verb === 'get') {
    const l = listVerbAndName(q);
    attrs.verb = l.watch ? 'watch' : 'list';
    attrs.name = l.name;
    if (l.fieldSelector) attrs.fieldSelector = l.fieldSelector;
  }
  if (!attrs.name && attrs.verb === 'delete') {
    attrs.verb = 'deletecollection';
    const fs = fieldSelectorTerms(q);
    if (fs) attrs.fieldSelector = fs;
  }
  return attrs;
}
