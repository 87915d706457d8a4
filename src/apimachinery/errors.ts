import type { Status, StatusCause } from 'kubernetes-types/meta/v1.js';
import { type FieldError, causeOf, formatFieldErrors } from './field-errors.js';
import { goQuote } from './go-quote.js';

/** A group-qualified resource, as upstream names it in messages ("deployments.apps"). */
export interface GroupResource { group: string; resource: string }

export function qualified(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** An error that the HTTP layer answers with a metav1.Status body. */
export class StatusError extends Error {
  constructor(readonly status: Status & { code: number }) { super(status.message); }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): StatusError {
  const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason };
  // Field order as upstream serializes a Status: details before code.
  return new StatusError({ ...s, ...(details ? { details } : {}), code });
}

function details(gr: GroupResource, name: string): NonNullable<Status['details']> {
  // StatusDetails fields are omitempty.
  const d: NonNullable<Status['details']> = name ? { name } : {};
  if (gr.group) d.group = gr.group;
  if (gr.resource) d.kind = gr.resource;
  return d;
}

export const errors = {
  notFound: (gr: GroupResource, name: string) =>
    failure(404, 'NotFound', `${qualified(gr)} "${name}" not found`, details(gr, name)),
  alreadyExists: (gr: GroupResource, name: string) =>
    failure(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, details(gr, name)),
  /** NewGenerateNameConflict: a generated name was taken; the client may try again after a second. */
  generateNameConflict: (gr: GroupResource, name: string) =>
    failure(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists, the server was not able to generate a unique name for the object`,
      { ...details(gr, name), retryAfterSeconds: 1 }),
  conflict: (gr: GroupResource, name: string, why: string) =>
    failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`, details(gr, name)),
  objectModified: (gr: GroupResource, name: string) =>
    errors.conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again'),
  /** NewForbidden: the resource and name are left out of the message when empty (non-resource paths). */
  forbidden: (gr: GroupResource, name: string, why: string, causes?: StatusCause[]) => {
    const d = details(gr, name);
    if (causes) d.causes = causes;
    const message = !gr.group && !gr.resource ? `forbidden: ${why}`
      : name ? `${qualified(gr)} ${goQuote(name)} is forbidden: ${why}` : `${qualified(gr)} is forbidden: ${why}`;
    return failure(403, 'Forbidden', message, d);
  },
  invalid: (kind: { group: string; kind: string }, name: string, errs: FieldError[]) => {
    const q = kind.group ? `${kind.kind}.${kind.group}` : kind.kind;
    const d: NonNullable<Status['details']> = name ? { name } : {};
    if (kind.group) d.group = kind.group;
    if (kind.kind) d.kind = kind.kind;
    d.causes = errs.map(causeOf);
    return failure(422, 'Invalid', `${q} "${name}" is invalid: ${formatFieldErrors(errs)}`, d);
  },
  badRequest: (message: string) => failure(400, 'BadRequest', message),
  methodNotAllowed: () =>
    failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),
  notFoundGeneric: () => failure(404, 'NotFound', 'the server could not find the requested resource', {}),
  unsupportedMediaType: (message: string) => failure(415, 'UnsupportedMediaType', message, {}),
  /** negotiation's errNotAcceptable: a Status with no details. */
  notAcceptable: (message: string) => failure(406, 'NotAcceptable', message),
  expired: (message: string) => failure(410, 'Expired', message),
  tooLarge: (limit: number) => failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),
  unauthorized: () => failure(401, 'Unauthorized', 'Unauthorized'),
  /**
   * ErrorToAPIStatus of an error that is no Status (e.g. a storage error the registry passes
   * through): 500 with the error's text and no reason.
   */
  unknown: (message: string) =>
    new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 }),
  /** storage.NewTooLargeResourceVersionError: a resourceVersion newer than the server has reached. */
  tooLargeResourceVersion: (requested: number, current: number, retryAfterSeconds: number) =>
    failure(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
    }),
  internal: (message: string) =>
    failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
};

/** The reason of a StatusError; undefined for any other error (apierrors.ReasonForError). */
export function reasonOf(e: unknown): string | undefined {
  return e instanceof StatusError ? e.status.reason : undefined;
}

/** apierrors.IsNotFound. */
export const isNotFound = (e: unknown): e is StatusError => reasonOf(e) === 'NotFound';
/** apierrors.IsAlreadyExists. */
export const isAlreadyExists = (e: unknown): e is StatusError => reasonOf(e) === 'AlreadyExists';
/** apierrors.IsConflict. */
export const isConflict = (e: unknown): e is StatusError => reasonOf(e) === 'Conflict';

/** A caught value as an Error (what was thrown when it is one), for code that keeps a failure to rethrow later. */
export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** The value a read resolves to, or undefined when it fails with NotFound (client-go's `if apierrors.IsNotFound(err)` idiom). */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
