/** A CRD's OpenAPI v3 schema node as JSON carries it, with the Kubernetes extensions kubernetes-types leaves out (shared by the CRD registry, server-side apply and OpenAPI). */
import type { JSONSchemaProps } from 'kubernetes-types/apiextensions/v1.js';

type Nested = 'properties' | 'items' | 'additionalProperties' | 'allOf' | 'anyOf' | 'oneOf' | 'not';

export interface Schema extends Omit<JSONSchemaProps, Nested> {
  properties?: Record<string, Schema>;
  items?: Schema | Schema[];
  additionalProperties?: Schema | boolean;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

/** A version's schema, typed with the extensions. */
export function schemaOf(s: JSONSchemaProps | undefined): Schema | undefined {
  return s;
}
