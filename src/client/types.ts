/**
 * The one way components (controllers, scheduler, kubelets, node farm,
 * event recorders) reach the API: typed handles per resource with the verbs
 * of client-go's dynamic client. Two implementations: loopback (in
 * process, through the registry's admission and as the client's identity)
 * and HTTPS (another process, through the whole request path).
 *
 * Failures are the server's `StatusError`s (apimachinery/errors: test them
 * with `isNotFound`, `isConflict`, `isAlreadyExists`); a call aborted by its
 * signal rejects with the signal's reason.
 */
import type { KObject } from '../apimachinery/object.js';

/** A resource in one group/version; `T` is the object shape its handles return. */
export interface ResourceRef<T = KObject> {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case, as in URLs. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  /** The verbs it serves (discovery's); all when absent. */
  readonly verbs?: readonly string[];
  /** Never set: carries `T`. */
  readonly __object?: T;
}

/** Who a client acts as (user.Info): what authentication yields for an HTTP request. */
export interface UserInfo { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }

export interface CallOptions { signal?: AbortSignal }

/** metav1.ListOptions, as a client sends them. */
export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** A watch starts after `resourceVersion` (a list's), with the list's selectors. */
export interface WatchOptions extends ListOptions { resourceVersion: string }

export interface WriteOptions extends CallOptions {
  dryRun?: boolean;
  /** The field manager; the client's own (its component name) when absent. */
  fieldManager?: string;
  /**
   * The caller never changes the object the write returns. In process this
   * lets the write's watch event share it rather than copy it; over HTTPS it
   * changes nothing.
   */
  sharedResult?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /** The subresource written through ("status", ...); the object itself when absent. */
  subresource?: string;
}

/** metav1.DeleteOptions. */
export interface DeleteOptions extends CallOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  fieldManager?: string;
}

export interface ObjectList<T> { items: T[]; resourceVersion: string; continue?: string }

/**
 * What a delete did: `deleted` is false when the object stays (graceful
 * deletion, finalizers) and `object` is then its state marked for deletion.
 */
export interface DeleteResult<T> { object: T; deleted: boolean }

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchSink<T> = (type: WatchEventType, obj: T) => void;

/**
 * A running watch: `done` resolves when it ends (stopped, or closed by the
 * server) and rejects when the server ended it with an error (410 Expired:
 * list again).
 */
export interface Watch {
  stop(): void;
  readonly done: Promise<void>;
}

export type PatchType = 'application/merge-patch+json' | 'application/strategic-merge-patch+json' | 'application/json-patch+json';

/** The verbs of one resource. Cluster-scoped resources take '' for the namespace. */
export interface ResourceClient<T = KObject> {
  readonly ref: ResourceRef<T>;
  /** Rejects with NotFound when there is no such object. */
  get(namespace: string, name: string, opts?: CallOptions): Promise<T>;
  /** The object, or undefined when there is none. */
  find(namespace: string, name: string, opts?: CallOptions): Promise<T | undefined>;
  /** '' lists every namespace. */
  list(namespace: string, opts?: ListOptions): Promise<ObjectList<T>>;
  watch(namespace: string, opts: WatchOptions, sink: WatchSink<T>): Promise<Watch>;
  create(namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  /**
   * Read, mutate, write, tried again with the object as it then is while the
   * write loses a race (client-go's RetryOnConflict around Get and Update).
   * A resourceVersion the mutation leaves on the object is a precondition.
   */
  update(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: UpdateOptions): Promise<T>;
  /** `update` through the status subresource. */
  updateStatus(namespace: string, name: string, mutate: (current: T) => T | Promise<T>, opts?: WriteOptions): Promise<T>;
  patch(namespace: string, name: string, type: PatchType, patch: unknown, opts?: UpdateOptions): Promise<T>;
  delete(namespace: string, name: string, opts?: DeleteOptions): Promise<DeleteResult<T>>;
  /** A POST to a subresource (pods/binding, pods/eviction): the server's answer. */
  createSubresource(namespace: string, name: string, subresource: string, body: KObject, opts?: WriteOptions): Promise<KObject>;
}

export interface Client {
  /** Who this client acts as. */
  readonly user: UserInfo;
  /** The field manager its writes name when the call names none. */
  readonly fieldManager: string;
  resource<T>(ref: ResourceRef<T>): ResourceClient<T>;
  /**
   * The served resources as client-go's ServerPreferredResources gives them, for components that act
   * on every kind (garbage collector, namespace deletion, quota): each group's resources once, in the
   * group's preferred version when served there, else in the first other version that serves them.
   */
  resources(): Promise<ResourceRef[]>;
  /** The same connection as another identity (each controller as its own service account, each kubelet as its node). */
  as(user: UserInfo, fieldManager: string): Client;
  close(): void;
}
