import { Server as NetServer } from 'node:net';
import type { Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Graceful termination as the generic apiserver does it (RunWithContext with the defaults:
 * no shutdown delay, no watch termination grace period): stop accepting connections, let every
 * request in flight finish (bounded by the shutdown timeout), end the long-running ones (watches)
 * without waiting for them, close idle connections, answer any request still arriving on an open
 * connection with `Connection: close`, then return.
 */
export class RequestDrain {
  private readonly inFlight = new Set<ServerResponse>();
  private readonly longRunning = new Set<ServerResponse>();
  private draining = false;

  /** Counts a request from its start to the end of its response. */
  track(res: ServerResponse): void {
    this.inFlight.add(res);
    res.once('close', () => { this.inFlight.delete(res); this.longRunning.delete(res); });
    if (this.draining) this.noKeepAlive(res);
  }

  /** A watch (or another long-running request): not waited for, ended when the drain starts. */
  markLongRunning(res: ServerResponse): void {
    this.inFlight.delete(res);
    if (this.draining) { this.end(res); return; }
    this.longRunning.add(res);
  }

  async drain(server: Server, timeoutMs: number): Promise<void> {
    this.draining = true;
    // Stop listening without http.Server#close's immediate closeIdleConnections: a request whose
    // bytes are already on a connection would otherwise be cut before it is read.
    NetServer.prototype.close.call(server);
    for (const res of this.longRunning) this.end(res);
    for (const res of this.inFlight) this.noKeepAlive(res);
    // Go's Shutdown polls: idle connections are closed, active ones get their answer first.
    const deadline = Date.now() + timeoutMs;
    let pause = 1;
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.inFlight.size === 0) break;
      server.closeIdleConnections();
      if (Date.now() >= deadline) break;
      await sleep(pause);
      pause = Math.min(pause * 2, 100);
    }
    server.closeIdleConnections();
    server.closeAllConnections();
  }

  private noKeepAlive(res: ServerResponse): void {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  private end(res: ServerResponse): void {
    const socket = res.socket;
    if (!res.writableEnded) res.end(() => socket?.end());
    else socket?.end();
  }
}
