/**
 * The project's OpenAPI data: the structure of every served kind and
 * operation, without descriptions. scripts/gen-openapi.ts derives
 * openapi-data.json from the upstream documents recorded under
 * ../shared/golden/openapi plus the fields added up to v1.32
 * (scripts/gen-openapi-additions.ts); documents.ts expands it into the
 * /openapi/v2 and /openapi/v3 documents.
 */
import builtin from './openapi-data.json' with { type: 'json' };

/** A schema in OpenAPI v3 form ("$ref": "#/components/schemas/<name>"). */
export type Schema = { [key: string]: unknown };

/** One parameter, in OpenAPI v3 form without description. */
export interface ParamData {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  schema: { type: string; uniqueItems?: boolean };
}

/** A request or response body: a definition name, or an inline schema. */
export type BodyData = string | Schema;

export interface OperationData {
  operationId: string;
  tags: string[];
  /** x-kubernetes-action. */
  action?: string;
  /** x-kubernetes-group-version-kind as [group, version, kind]. */
  gvk?: [string, string, string];
  /** Indexes into OpenApiData.params, in upstream's order. */
  params?: number[];
  body?: BodyData;
  /** The v2 body parameter's `required`. */
  bodyRequired?: boolean;
  /** Indexes into OpenApiData.media: the v2 consumes and produces lists. */
  consumes: number;
  produces: number;
  /** Status code to the response body (null: no body). */
  responses: Record<string, BodyData | null>;
}

export interface PathData {
  params?: number[];
  ops: Record<string, OperationData>;
}

export interface OpenApiData {
  source: string;
  /** info.version of the documents. */
  version: string;
  params: ParamData[];
  media: string[][];
  /** Definitions in v3 form, keyed by upstream's full name. */
  defs: Record<string, Schema>;
  /** The v2 form of the few definitions whose v2 form is not mechanically derived from v3. */
  defsV2: Record<string, Schema>;
  /** Per /openapi/v3 document key ("api/v1", "apis/apps/v1", "apis/apps", "version"): its paths. */
  docs: Record<string, Record<string, PathData>>;
}

export const openApiData = builtin as unknown as OpenApiData;

export const SCHEMA_REF_PREFIX = '#/components/schemas/';
export const DEFINITION_REF_PREFIX = '#/definitions/';
