import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** Go's rstAvoidanceDelay: how long a closing connection waits after its last answer. */
const RST_AVOIDANCE_DELAY_MS = 500;

/**
 * An answer given before the request body was read (401 to an unknown client, 413, 415...) on a
 * connection that then closes (`Connection: close`). Node destroys the socket at once; with the
 * client's body still arriving, the kernel answers it with a reset that discards the answer before
 * the client reads it, so the client sees the connection closed with no answer. Go's server
 * (conn.closeWriteAndWait) instead sends its FIN and waits 500 ms before closing; here the rest of
 * the body is also read (and dropped) meanwhile, so no reset is sent while the client still reads.
 */
export function lingerAfterEarlyAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.once('prefinish', () => {
    if (req.complete) return;
    const socket = req.socket as Socket & { destroySoon?: () => void };
    // Node's response calls socket.destroySoon() when the connection is not kept alive.
    socket.destroySoon = () => {
      if (socket.writable) socket.end();
      socket.resume();
      setTimeout(() => socket.destroy(), RST_AVOIDANCE_DELAY_MS).unref();
    };
  });
}
