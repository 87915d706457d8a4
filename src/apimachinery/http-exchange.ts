/**
 * One HTTP/1.1 exchange as whole messages: what the cluster network model
 * carries between a pod's programs, what port-forward relays from a local
 * socket, and what the host's exposed ports relay. Low so that the API's
 * streaming handlers and the node's network share one shape.
 */

export interface HttpRequest {
  method: string;
  /** The request target as sent: path and query (`/`, `/healthz?x=1`). */
  target: string;
  /** Header fields in the order sent, names as the client wrote them. */
  headers: [string, string][];
  body: Uint8Array;
}

export interface HttpResponse {
  /** The status line's protocol version when it is not HTTP/1.1 (Go's TLS listener answers plain HTTP with HTTP/1.0). */
  version?: '1.0';
  status: number;
  reason: string;
  headers: [string, string][];
  body: Uint8Array;
}

/** What comes back for a request: the response, or a RST (the serving process went away before it answered). */
export type HttpReply = HttpResponse | 'reset';

/**
 * Go's net/http server on a TLS listener, when the first bytes are a plain HTTP request (server.go
 * serve: written on the raw connection, which it then closes): HTTP/1.0, no header fields.
 */
export const GO_TLS_LISTENER_PLAIN_HTTP_ANSWER: HttpResponse = {
  version: '1.0', status: 400, reason: 'Bad Request', headers: [], body: Buffer.from('Client sent an HTTP request to an HTTPS server.\n'),
};
