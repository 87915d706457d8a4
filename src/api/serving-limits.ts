/**
 * The HTTP server's limits, as apiserver's SecureServingInfo.Serve configures Go's http.Server
 * (k8s.io/apiserver/pkg/server/secure_serving.go).
 */

/** MaxHeaderBytes: 1 << 20. Go reads up to that plus 4096 bytes of slack before it answers 431. */
export const MAX_HEADER_BYTES = (1 << 20) + 4096;

/** ReadHeaderTimeout: 32 s ("just shy of requestTimeoutUpperBound"); then the connection is closed. */
export const READ_HEADER_TIMEOUT_MS = 32_000;

/** IdleTimeout: 90 s, the keep-alive timeout of http.DefaultTransport. */
export const IDLE_TIMEOUT_MS = 90_000;

/**
 * How long a shutdown waits for requests in flight: the server's ShutdownTimeout, which is its
 * RequestTimeout (60 s, `--request-timeout`), the bound of every non-long-running request.
 */
export const SHUTDOWN_TIMEOUT_MS = 60_000;
