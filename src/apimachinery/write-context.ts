/**
 * What a write knows about its request: upstream passes it in the request's
 * context.Context (namespace, user, dry run, the warning recorder). It sits
 * in the base package because validation (warnings), field management,
 * admission and the registry all read it.
 */
export interface WriteContext {
  /** The request's namespace ('' for cluster-scoped). */
  namespace: string;
  now: Date;
  dryRun: boolean;
  /** The user's name, for fields such as managedFields. */
  fieldManager: string;
  /** Adds a warning for the client (a `Warning: 299` response header, which kubectl prints). */
  warn: (message: string) => void;
  /** admission.Attributes.AddAnnotation: an annotation on the request's audit event (when the audit log records it). */
  annotate?: (key: string, value: string) => void;
  /**
   * The object name in the request's URL (RequestInfo.Name): a PUT's or a
   * PATCH's, even when it creates; absent for a POST to a collection.
   */
  requestName?: string;
  /**
   * The write's options as the request's query gave them (CreateOptions/UpdateOptions: dryRun,
   * fieldManager, fieldValidation), for what admission webhooks are sent; absent for in-process writes.
   */
  options?: { dryRun?: string[]; fieldManager?: string; fieldValidation?: string };
  /** Who is writing (absent for the server's own controllers). */
  user?: { name: string; groups: string[]; uid?: string; extra?: Record<string, string[]> };
}


/** The write context of a write the server makes itself: no user, no dry run, warnings dropped. */
export function inProcessWriteContext(fieldManager: string): WriteContext {
  return { namespace: '', now: new Date(), dryRun: false, fieldManager, warn: () => {} };
}
