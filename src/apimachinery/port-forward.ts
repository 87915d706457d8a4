/**
 * The kubelet's half of pods/portforward as the API server's streaming
 * handler sees it: a connection to a port inside the pod's network
 * namespace. The cluster network model carries whole HTTP/1.1 exchanges, so
 * a forwarded connection is a sequence of request/response pairs.
 */

export interface ForwardedRequest {
  method: string;
  /** Path and query as sent. */
  target: string;
  /** Header fields in the order sent, names as the client wrote them. */
  headers: [string, string][];
  body: Uint8Array;
}

export interface ForwardedResponse {
  status: number;
  reason: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** The response, or a RST when the serving process went away before it answered. */
export type ForwardedReply = ForwardedResponse | 'reset';

export type PortForwardResult =
  | { kind: 'connected'; exchange(req: ForwardedRequest): Promise<ForwardedReply> }
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
