/**
 * The OpenAPI documents winkube serves, for the resources it registers: the
 * /openapi/v3 index and per group-version documents, and /openapi/v2 as JSON
 * and as gnostic protobuf. Built once, lazily, on first request.
 */
import { createHash } from 'node:crypto';
import type { ResourceInfo } from '../apimachinery/resource.js';
import { openApiData, type OpenApiData, type Schema } from './data.js';
import { COMMON_FIELDS, FIELD_DESCRIPTIONS, shortName, TYPE_DESCRIPTIONS } from './descriptions.js';
import { isObject, v2Document, v3Document, type PathFilter } from './expand.js';
import { encodeDocument } from './gnostic.js';
import { groupVersionKey, withCustomResources, type CustomResourceVersion } from './custom-resource.js';

/** The data with winkube's own descriptions on the commonest types and fields. */
export function describedData(data: OpenApiData = openApiData): OpenApiData {
  const defs: Record<string, Schema> = { ...data.defs };
  for (const [name, def] of Object.entries(data.defs)) {
    const short = shortName(name);
    const props = isObject(def.properties) ? def.properties as Record<string, Schema> : undefined;
    const isKind = Array.isArray(def['x-kubernetes-group-version-kind']);
    const typeText = TYPE_DESCRIPTIONS[short];
    const fieldTexts: [string, string][] = [];
    for (const f of Object.keys(props ?? {})) {
      const text = FIELD_DESCRIPTIONS[`${short}.${f}`] ?? (isKind ? COMMON_FIELDS[f] : undefined);
      if (text) fieldTexts.push([f, text]);
    }
    if (!typeText && fieldTexts.length === 0) continue;
    const copy: Schema = typeText ? { description: typeText, ...def } : { ...def };
    if (fieldTexts.length) {
      const newProps = { ...props };
      for (const [f, text] of fieldTexts) newProps[f] = { description: text, ...newProps[f] };
      copy.properties = newProps;
    }
    defs[name] = copy;
  }
  return { ...data, defs };
}

/** The group/version of a /openapi/v3 document key ("api/v1" → ["", "v1"]), or undefined for other keys. */
function groupVersionOf(key: string): [string, string] | undefined {
  const parts = key.split('/');
  const [root, second = '', third = ''] = parts;
  if (root === 'api' && parts.length === 2) return ['', second];
  if (root === 'apis' && parts.length === 3) return [second, third];
  return undefined;
}

/**
 * Which paths of the recorded documents winkube serves: those of registered
 * resources and their declared subresources, the discovery documents of
 * served group versions, and /version.
 */
export function servedPaths(defs: ResourceInfo[], data: OpenApiData = openApiData): { keys: string[]; keep: PathFilter } {
  const byGV = new Map<string, Map<string, ResourceInfo>>();
  for (const d of defs) {
    const gv = d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`;
    if (!byGV.has(gv)) byGV.set(gv, new Map());
    byGV.get(gv)!.set(d.resource, d);
  }
  const groups = new Set([...byGV.keys()].filter((k) => k.startsWith('apis/')).map((k) => k.split('/').slice(0, 2).join('/')));
  const keys = Object.keys(data.docs).filter((k) => {
    if (k === 'api' || k === 'apis' || k === 'version') return true;
    if (groupVersionOf(k)) return byGV.has(k);
    return groups.has(k);
  });
  const keep: PathFilter = (path) => {
    const m = /^\/(api\/[^/]+|apis\/[^/]+\/[^/]+)\/(.*)$/.exec(path);
    if (!m) return true;
    const [, gv = '', rest = ''] = m;
    const resources = byGV.get(gv);
    if (!resources) return false;
    let segs = rest.split('/');
    if (segs.length === 1 && segs[0] === '') return true;
    if (segs[0] === 'watch') segs = segs.slice(1);
    if (segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2) segs = segs.slice(2);
    const def = resources.get(segs[0] ?? '');
    if (!def) return false;
    if (segs.length < 3) return true;
    return def.subresources?.some((s) => s.name === segs[2]) ?? false;
  };
  return { keys, keep };
}

export interface Served { body: Buffer; etag: string; contentType: string }

/** Uppercase hex SHA-512, as kube-openapi names document versions. */
const hashOf = (b: Buffer | string) => createHash('sha512').update(b).digest('hex').toUpperCase();

export class OpenApiDocuments {
  private v3Docs?: Map<string, Served>;
  private indexBody?: Served;
  private v2JsonDoc?: Served;
  private v2ProtoDoc?: Served;
  private v2Doc?: Schema;
  private readonly builtin: OpenApiData;
  private data: OpenApiData;
  private served: { keys: string[]; keep: PathFilter };
  /** The /openapi/v3 keys of custom resources' group versions. */
  private customKeys = new Set<string>();

  constructor(defs: ResourceInfo[], data: OpenApiData = openApiData) {
    this.builtin = describedData(data);
    this.data = this.builtin;
    this.served = servedPaths(defs, this.data);
  }

  /**
   * Serves the given resources, with the served versions of established CRDs among them (as the
   * apiextensions OpenAPI controllers merge them in): their group versions' documents and the v2
   * document are rebuilt on next request, the built-in group versions' kept.
   */
  setResources(defs: ResourceInfo[], customs: CustomResourceVersion[]): void {
    const keys = new Set(customs.map((c) => groupVersionKey(c.crd.spec.group, c.version)));
    this.data = withCustomResources(this.builtin, customs);
    this.served = servedPaths(defs, this.data);
    for (const k of [...this.customKeys, ...keys]) this.v3Docs?.delete(k);
    if (this.v3Docs) for (const k of this.v3Docs.keys()) if (!this.served.keys.includes(k)) this.v3Docs.delete(k);
    this.customKeys = keys;
    this.indexBody = undefined;
    this.v2JsonDoc = undefined;
    this.v2ProtoDoc = undefined;
    this.v2Doc = undefined;
  }

  private buildV3(): Map<string, Served> {
    this.v3Docs ??= new Map();
    for (const key of this.served.keys) {
      if (this.v3Docs.has(key)) continue;
      const doc = v3Document(this.data, key, this.served.keep);
      if (this.customKeys.has(key)) {
        // The CRD builder's config: its own info, and no security schemes.
        doc.info = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };
        doc.components = { schemas: (doc.components as { schemas: Schema }).schemas };
      }
      const body = Buffer.from(JSON.stringify(doc));
      this.v3Docs.set(key, { body, etag: hashOf(body), contentType: 'application/json' });
    }
    return this.v3Docs;
  }

  /** GET /openapi/v3: every document's serverRelativeURL with its hash. */
  index(): Served {
    if (!this.indexBody) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [key, doc] of [...this.buildV3()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${doc.etag}` };
      }
      const body = Buffer.from(JSON.stringify({ paths }));
      this.indexBody = { body, etag: hashOf(body), contentType: 'application/json' };
    }
    return this.indexBody;
  }

  /** One /openapi/v3/<key> document, or undefined when not served. */
  v3(key: string): Served | undefined {
    return this.buildV3().get(key);
  }

  private v2Object(): Schema {
    return (this.v2Doc ??= v2Document(this.data, this.served.keys, this.served.keep));
  }

  /** GET /openapi/v2 as JSON. */
  v2Json(): Served {
    if (!this.v2JsonDoc) {
      const body = Buffer.from(JSON.stringify(this.v2Object()));
      this.v2JsonDoc = { body, etag: hashOf(body), contentType: 'application/json' };
    }
    return this.v2JsonDoc;
  }

  /** GET /openapi/v2 as the gnostic protobuf message kubectl 1.27/1.28 ask for. */
  v2Protobuf(): Served {
    if (!this.v2ProtoDoc) {
      const body = encodeDocument(this.v2Object());
      this.v2ProtoDoc = { body, etag: hashOf(body), contentType: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf' };
    }
    return this.v2ProtoDoc;
  }
}
