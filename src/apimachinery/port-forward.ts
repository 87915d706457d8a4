/**
 * The kubelet's half of pods/portforward as the API server's streaming
 * handler sees it: a connection to a port inside the pod's network
 * namespace. The cluster network model carries whole HTTP/1.1 exchanges, so
 * a forwarded connection is a sequence of request/response pairs.
 */

import type { HttpReply, HttpRequest } from './http-exchange.js';

export type PortForwardResult =
  | { kind: 'connected'; exchange(req: HttpRequest): Promise<HttpReply> }
  /** The runtime's own text for a failed connection (containerd: "failed to execute portforward in network namespace ..."). */
  | { kind: 'failed'; message: string };

/** A pod's network namespace as port-forward reaches it. */
export interface PortForwardTarget {
  /** How the runtime names the pod in errors (CRI: the sandbox id; the uid is left empty). */
  pod: string;
  uid: string;
  /** Dials a port on localhost inside the pod. */
  dial(port: number): Promise<PortForwardResult>;
}
