/**
 * How kube-apiserver answers a request that met an unreachable etcd. Its etcd client waits for a
 * connection until the request's deadline, then a write (create, update, patch, delete) ends in
 * the request finisher's 504 (k8s.io/apiserver/pkg/endpoints/handlers/finisher: "request did not
 * complete within requested timeout - " and the context's error) and a read in ErrorToAPIStatus's
 * reason-less 500 of the client's error, which is the context's. A watch etcd fails under gets
 * etcd3's transformErrorToEvent: an ERROR event with that error as an InternalError. The storage
 * here fails at once while no member answers, so the same answers come without the wait.
 */
import type { Status } from 'kubernetes-types/meta/v1.js';
import { errors } from '../apimachinery/errors.js';

const DEADLINE = 'context deadline exceeded';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export type StatusWithCode = Status & { code: number };

/** The answer to a request with this HTTP method whose storage could not be reached. */
export function storageUnavailableStatus(method: string | undefined): StatusWithCode {
  if (WRITE_METHODS.has(method ?? '')) {
    return {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `Timeout: request did not complete within requested timeout - ${DEADLINE}`, reason: 'Timeout', details: {}, code: 504,
    };
  }
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: DEADLINE, code: 500 };
}

/** The ERROR event of a watch whose storage could not be reached. */
export function watchStorageUnavailableStatus(): StatusWithCode {
  return errors.internal(DEADLINE).status;
}
