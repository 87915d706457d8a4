/**
 * What a request meets while no etcd member answers. kube-apiserver's etcd client waits for a
 * connection until the request's deadline (60 s), then a write ends in the request finisher's
 * 504 (k8s.io/apiserver/pkg/endpoints/handlers/finisher: "request did not complete within
 * requested timeout - " and the context's error) and a read in ErrorToAPIStatus's 500 of the
 * client's error, which is the context's ("context deadline exceeded"). The etcd3 client here
 * fails at once while its circuit to the member is open, so the same answers come without the wait.
 */
import { isRecoverableError } from 'etcd3';
import { StatusError } from '../apimachinery/errors.js';

const DEADLINE = 'context deadline exceeded';

/** The etcd3 client could not reach a member: a connection error, or its circuit breaker refusing to try. */
export function isEtcdUnreachable(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return isRecoverableError(e) || 'isBrokenCircuitError' in e || 'isHydratingCircuitError' in e;
}

/** apierrors.NewTimeoutError as the finisher makes it for a write that could not reach etcd. */
export function writeUnavailable(): StatusError {
  return new StatusError({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `Timeout: request did not complete within requested timeout - ${DEADLINE}`, reason: 'Timeout', details: {}, code: 504,
  });
}

/** ErrorToAPIStatus of the etcd client's error for a read: 500 with its text and no reason. */
export function readUnavailable(): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: DEADLINE, code: 500 });
}

/** The call's own error, or the Status a client is answered with when etcd could not be reached. */
export function unreachableAs(kind: 'read' | 'write', e: unknown): unknown {
  if (!isEtcdUnreachable(e)) return e;
  return kind === 'read' ? readUnavailable() : writeUnavailable();
}
