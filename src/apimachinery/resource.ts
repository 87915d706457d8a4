/**
 * What the layers below the registry (OpenAPI, field management, admission)
 * know of a resource: its group, version, names, scope and subresources, as
 * upstream's RESTMapper and discovery describe it. The registry's
 * ResourceDef is one, with the strategy added.
 */

/** A subresource served under `<resource>/<name>/<sub>`. */
export interface SubresourceDef {
  name: string;
  /** Response kind when it differs from the parent's (e.g. Scale, Eviction). */
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
}

export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural, lower case, as in URLs. */
  resource: string;
  kind: string;
  namespaced: boolean;
  subresources?: SubresourceDef[];
  /** Whether `status` is only written through the status subresource. */
  hasStatusSubresource?: boolean;
}
