/**
 * The etcd3 client's errors for a member it could not reach, as the storage contract's
 * UnavailableError: the HTTP layer answers it as kube-apiserver answers a request that met an
 * unreachable etcd (src/api/storage-unavailable.ts).
 */
import { isRecoverableError } from 'etcd3';
import { UnavailableError } from './types.js';

/** A connection error, or the client's circuit breaker refusing to try a member that just failed. */
export function isEtcdUnreachable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return isRecoverableError(e) || 'isBrokenCircuitError' in e || 'isHydratingCircuitError' in e;
}

/** The call's own error, or UnavailableError (with the client's text) when etcd could not be reached. */
export function unreachableAs(e: unknown): unknown {
  return isEtcdUnreachable(e) ? new UnavailableError((e as Error).message, { cause: e }) : e;
}
