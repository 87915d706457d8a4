import type { KObject } from '../apimachinery/object.js';
import type { Store } from './store.js';
import type { FieldError } from '../apimachinery/field-errors.js';
import type { ResourceInfo, SubresourceDef } from '../apimachinery/resource.js';
import type { WriteContext } from '../apimachinery/write-context.js';
import type { Lookup } from '../admission/lookup.js';
import type { AuthorizerWithRules } from '../authorization/types.js';

/** The verbs of a resource with the full REST interface. */
export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];


export interface TableColumn {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** Upstream's printer for one kind: its column definitions and how to fill a row. */
export interface Printer {
  columns: TableColumn[];
  /** One or more rows for the object (most kinds print one). `now` is ms since the epoch. */
  cells(obj: any, now: number): unknown[];
  /** Row conditions (upstream marks finished pods' rows "Completed"). */
  rowConditions?(obj: any): { type: string; status: string; reason: string; message: string }[] | undefined;
}

/**
 * One resource in one group/version: its discovery facts, how it is
 * defaulted, validated, printed and selected. Modules under registry/ each
 * export one of these; resources.ts lists them.
 */
/** An object of type T as the store holds it: metadata always present, every field the server's to set. */
export type Stored<T> = { -readonly [K in keyof T as K extends 'metadata' ? never : K]: T[K] } & KObject;

/** How a field selector reads a field (a method's type, so that a ResourceDef<Pod> is also a ResourceDef). */
type FieldReader<T> = { read(obj: Stored<T>): string }['read'];

/**
 * T is the object's type (kubernetes-types' shape for built-in kinds): the
 * hooks after decoding see objects of that shape, since decoding checks each
 * field against the Go type as upstream's does; `defaults` sees the input as
 * sent.
 */
export interface ResourceDef<T = KObject> extends ResourceInfo {
  group: string;
  version: string;
  /** Plural, lower case, as in URLs. */
  resource: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Verbs on the collection/object; default: all eight. */
  verbs?: string[];
  subresources?: SubresourceDef[];
  storageVersionHash?: string;
  /**
   * Where objects live in storage; resources served in several versions
   * (autoscaling v1/v2, core and events.k8s.io events) share one.
   */
  storagePrefix: string;
  /** Converters between this version and the stored one; identity when absent. */
  toStorage?(obj: KObject): KObject;
  fromStorage?(obj: KObject): KObject;
  /**
   * fromStorage changes only objects last written before this definition was
   * served (a custom resource's defaulting on read: objects written since were
   * defaulted as they were written), so lists serve the others as stored.
   */
  fromStorageOnlyOlder?: boolean;
  /**
   * Conversion through a webhook (a CRD whose conversion strategy is Webhook), in place of
   * toStorage/fromStorage: stored objects (as stored, without resourceVersion) into this version,
   * many in one call when `list`, and an object of this version into the stored one. They reject
   * with the Status the client gets.
   */
  convertFromStorage?(stored: KObject[], list: boolean): Promise<KObject[]>;
  convertToStorage?(obj: KObject): Promise<KObject>;
  /** Whether `metadata.generation` counts spec changes (most kinds with a spec). */
  hasGeneration?: boolean;
  /** What a change of bumps the generation, when more than the spec (Deployment: annotations too). */
  generationInput?(obj: Stored<T>): unknown;
  /** Whether `status` is only written through the status subresource. */
  hasStatusSubresource?: boolean;
  /** Whether status writes also change annotations (deploymentStatusStrategy keeps only spec and labels). */
  statusWritesAnnotations?: boolean;
  /** Whether status writes may change all of metadata, as the main resource's writes do (CertificateSigningRequests' status strategy resets none of it). */
  statusWritesMetadata?: boolean;
  /** Upstream defaulting (SetDefaults_*), applied on every decode of a write. */
  defaults?(obj: any): void;
  /** Strategy.PrepareForCreate: fields the server owns on create. */
  prepareForCreate?(obj: Stored<T>, ctx: WriteContext): void;
  /** Strategy.PrepareForUpdate: fields the server keeps on update. */
  prepareForUpdate?(obj: Stored<T>, old: Stored<T>, ctx: WriteContext): void;
  /**
   * The strategy of a subresource written through the generic update path
   * (status, approval): what it keeps of the stored object beyond the
   * spec/status split the store makes.
   */
  prepareForSubresourceUpdate?(subresource: string, obj: Stored<T>, old: Stored<T>, ctx: WriteContext): void;
  /** Admission on create (e.g. service account token volume, default tolerations). */
  admitCreate?(obj: Stored<T>, ctx: WriteContext, lookup: Lookup): Promise<void>;
  /** The same on update, after prepareForUpdate. */
  admitUpdate?(obj: Stored<T>, old: Stored<T>, ctx: WriteContext, lookup: Lookup): Promise<void>;
  /**
   * BeginCreate, after admitCreate: work to undo unless the create is stored
   * (a service's cluster IP and node port allocation). The store calls the
   * FinishFunc it returns once the create is stored, fails or was a dry run.
   */
  beginCreate?(obj: Stored<T>, ctx: WriteContext, lookup: Lookup): Promise<FinishFunc>;
  /** BeginUpdate, after admitUpdate: the same for each attempt of an update (not of a subresource). */
  beginUpdate?(obj: Stored<T>, old: Stored<T>, ctx: WriteContext, lookup: Lookup): Promise<FinishFunc>;
  validate?(obj: Stored<T>): FieldError[];
  /** Strategy.WarningsOnCreate/WarningsOnUpdate: warnings for a write that passed validation. */
  warnCreate?(obj: Stored<T>, ctx: WriteContext): void;
  warnUpdate?(obj: Stored<T>, old: Stored<T>, ctx: WriteContext): void;
  /** `subresource` names the subresource written through (status, binding, ephemeralcontainers, ...), if any. */
  validateUpdate?(obj: Stored<T>, old: Stored<T>, subresource?: string): FieldError[];
  /** Extra field selectors (beyond metadata.name/namespace) and how to read them. */
  fieldSelectors?: Record<string, FieldReader<T>>;
  /** Seconds of graceful deletion the object gets; 0 deletes at once. */
  gracePeriod?(obj: Stored<T>, requested: number | undefined): number;
  /** Strategy.AllowUnconditionalUpdate: false when an update must name the resourceVersion it replaces; true when absent. */
  allowUnconditionalUpdate?: boolean;
  /** Strategy.AllowCreateOnUpdate: a PUT of a missing object creates it (the RBAC kinds). */
  allowCreateOnUpdate?: boolean;
  /** Whether DELETE answers with the object rather than a Status. */
  returnDeletedObject?: boolean;
  /**
   * For resources that are answers rather than stored objects (access and
   * token reviews): computes the created object's status.
   */
  review?(obj: Stored<T>, ctx: WriteContext, auth: ReviewContext): KObject | Promise<KObject>;
  /** Admission on delete: throws a StatusError for objects that may not be deleted (immortal namespaces, system priority classes, another node's pods). */
  admitDelete?(obj: Stored<T>, ctx: WriteContext): void;
  /**
   * Marks an object for deletion beyond finalizers and grace periods (a
   * namespace turns Terminating); returns true while it must stay.
   */
  prepareForDelete?(obj: Stored<T>): boolean;
  /**
   * Subresources written by POST (pods/binding, pods/eviction), as their
   * REST storage does it: the body given, the answer returned.
   */
  subresourceWrites?: Record<string, SubresourceWrite>;
  /** Its Table printer, for resources defined at run time (custom resources); built-in ones are looked up by name. */
  printer?: Printer;
}

/** The POST of a subresource: its REST storage's Create. */
export type SubresourceWrite = (store: Store, def: ResourceDef, namespace: string, name: string, body: KObject,
  ctx: WriteContext) => Promise<KObject>;

/** A write's FinishFunc: `stored` is true once the write is stored, false when it failed or was not written. */
export type FinishFunc = (stored: boolean) => void;

/** What review resources may ask of the server's authentication. */
export interface ReviewContext {
  authenticateToken(token: string, audiences?: string[]): Promise<
    { ok: true; user: { name: string; groups: string[]; uid?: string }; audiences: string[] } | { ok: false; error: string }>;
  /** The server's authorizer (--authorization-mode); without it access reviews answer as AlwaysAllow would. */
  authorizer?: AuthorizerWithRules;
}
