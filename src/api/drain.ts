import { Server as NetServer } from 'node:net';
import type { Server } from 'node:https';
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Graceful termination as the generic apiserver does it (RunWithContext with the defaults:
 * no shutdown delay, no watch termination grace period): stop accepting connections, let every
 * request in flight finish (bounded by the shutdown timeout), end the long-running ones (watches)
 * without waiting for them, close idle connections, answer any request still arriving on an open
 * connection with `Connection: close`, then return.
 *
 * Requests are counted, not kept in a collection: putting every response in a Set gives each one
 * an identity hash, which changes the hidden class of Node's response objects and cost a third
 * more CPU per GET. Only long-running responses (few) are kept, to end them.
 */
export class RequestDrain {
  private inFlight = 0;
  private readonly longRunning = new Set<ServerResponse>();
  private draining = false;

  /** The server's response class: once the drain has started, every answer closes its connection. */
  readonly Response: typeof ServerResponse;

  constructor() {
    const draining = (): boolean => this.draining;
    this.Response = class DrainAwareResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
      override writeHead(statusCode: number, message?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
        headers?: OutgoingHttpHeaders | OutgoingHttpHeader[]): this {
        if (draining() && !this.headersSent) this.setHeader('Connection', 'close');
        return typeof message === 'string' ? super.writeHead(statusCode, message, headers) : super.writeHead(statusCode, message);
      }
    };
  }

  /** Counts a request from its start to the end of its response. */
  track(res: ServerResponse): void {
    this.inFlight++;
    res.once('close', () => {
      // A long-running response stopped counting when it was marked.
      if (!this.longRunning.delete(res)) this.inFlight--;
    });
  }

  /** A watch (or another long-running request): not waited for, ended when the drain starts. */
  markLongRunning(res: ServerResponse): void {
    this.inFlight--;
    this.longRunning.add(res);
    if (this.draining) this.end(res);
  }

  async drain(server: Server, timeoutMs: number): Promise<void> {
    this.draining = true;
    // Stop listening without http.Server#close's immediate closeIdleConnections: a request whose
    // bytes are already on a connection would otherwise be cut before it is read.
    NetServer.prototype.close.call(server);
    for (const res of this.longRunning) this.end(res);
    // Go's Shutdown polls: idle connections are closed, active ones get their answer first.
    const deadline = Date.now() + timeoutMs;
    let pause = 1;
    for (;;) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.inFlight <= 0) break;
      server.closeIdleConnections();
      if (Date.now() >= deadline) break;
      await sleep(pause);
      pause = Math.min(pause * 2, 100);
    }
    server.closeIdleConnections();
    server.closeAllConnections();
  }

  private end(res: ServerResponse): void {
    const socket = res.socket;
    if (!res.writableEnded) res.end(() => socket?.end());
    else socket?.end();
  }
}
