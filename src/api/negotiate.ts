/** How a response body is to be shaped, from the Accept header. */
export type Shape =
  | { kind: 'object'; format: 'json' | 'yaml' }
  | { kind: 'table' }
  | { kind: 'partial' };

interface MediaRange { type: string; params: Record<string, string> }

function parseAccept(accept: string | undefined): MediaRange[] {
  if (!accept) return [{ type: '*/*', params: {} }];
  return accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i).toLowerCase()] = kv.slice(i + 1);
    }
    return { type: type.toLowerCase(), params: p };
  });
}

/**
 * Picks the first acceptable representation, as upstream's negotiation does:
 * a Table or PartialObjectMetadata when asked with `as=`, otherwise JSON
 * (protobuf-preferring clients also accept JSON and decode by Content-Type).
 */
export function negotiate(accept: string | undefined): Shape {
  for (const r of parseAccept(accept)) {
    const as = r.params['as'];
    if (as) {
      if (r.params['g'] !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(r.params['v'] ?? '')) continue;
      if (as === 'Table') return { kind: 'table' };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'partial' };
      continue;
    }
    if (r.type === 'application/yaml') return { kind: 'object', format: 'yaml' };
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return { kind: 'object', format: 'json' };
  }
  return { kind: 'object', format: 'json' };
}
