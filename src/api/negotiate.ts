/** How a response body is to be shaped, from the Accept header. */
export type Shape =
  | { kind: 'object'; format: 'json' | 'yaml' }
  | { kind: 'table' }
  | { kind: 'partial' };

/**
 * What an endpoint can turn its objects into (RequestScope.AllowsMediaTypeTransform): every
 * registry store has a TableConvertor, but the storage of review resources (access reviews,
 * token reviews) implements none, so a Table cannot be asked of them.
 */
export interface Transforms { table: boolean }

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
 * The media types the API's serializers offer, in the order the 406 and 415 messages name them. CBOR is
 * offered only with the CBORServingAndStorage gate, alpha and off in v1.32.
 */
export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** negotiation.NewNotAcceptableError's text. */
export const NOT_ACCEPTABLE = `only the following media types are accepted: ${SERVED_MEDIA_TYPES.join(', ')}`;

/**
 * Picks the first acceptable representation, as upstream's negotiation does:
 * a Table or PartialObjectMetadata when asked with `as=` and the endpoint can
 * produce it, otherwise JSON or YAML. Protobuf-preferring
 * clients are answered in JSON and decode by Content-Type. Undefined when no
 * offered range can be served: the caller answers 406.
 */
export function negotiateShape(accept: string | undefined, transforms: Transforms): Shape | undefined {
  for (const r of parseAccept(accept)) {
    const as = r.params['as'];
    if (as) {
      if (r.params['g'] !== 'meta.k8s.io' || !['v1', 'v1beta1'].includes(r.params['v'] ?? '')) continue;
      if (as === 'Table' && transforms.table) return { kind: 'table' };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { kind: 'partial' };
      continue;
    }
    if (r.type === 'application/yaml') return { kind: 'object', format: 'yaml' };
    if (r.type === 'application/json' || r.type === '*/*' || r.type === 'application/*') return { kind: 'object', format: 'json' };
    if (r.type === 'application/vnd.kubernetes.protobuf') return { kind: 'object', format: 'json' };
  }
  return undefined;
}

/**
 * negotiateShape for endpoints that can produce every representation; a request no range of
 * which is served is answered in JSON (how this server has always answered, e.g. `as=` a kind
 * it does not know).
 */
export function negotiate(accept: string | undefined): Shape {
  return negotiateShape(accept, { table: true }) ?? { kind: 'object', format: 'json' };
}
