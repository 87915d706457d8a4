import type { Status } from 'kubernetes-types/meta/v1.js';

/** Which streams the client asked for (kubelet's remotecommand.NewOptions). */
export interface StreamOptions { stdin: boolean; stdout: boolean; stderr: boolean; tty: boolean }

export interface TerminalSize { width: number; height: number }

export type OutputStream = 'stdout' | 'stderr';

/**
 * What a running command sees of its client, whatever the transport
 * (WebSocket channels or SPDY streams). Handlers may be attached late:
 * anything that arrived before is delivered then.
 */
export interface RemoteCommandConnection {
  readonly options: StreamOptions;
  /** Each chunk of stdin; null once the client closed stdin (or went away). */
  onStdin(f: (data: Buffer | null) => void): void;
  onResize(f: (size: TerminalSize) => void): void;
  /** The client disconnected before the command finished. */
  onClose(f: () => void): void;
  write(stream: OutputStream, data: Buffer | string): void;
  /** Reports how the command ended on the error stream and closes the connection. */
  finish(status: Status): void;
}

/** The Status a successful command reports on the error stream. */
export function successStatus(): Status {
  return { metadata: {}, status: 'Success' };
}

/**
 * A command that exited non-zero: the kubelet's exec handler wraps the
 * runtime's CodeExitError (containerd: "error executing command %v, exit code %d")
 * into this Status; client-go turns it back into the exit code.
 */
export function exitCodeStatus(command: string[], code: number): Status {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

/** Any other failure: apierrors.NewInternalError. */
export function internalErrorStatus(message: string): Status {
  return {
    metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError',
    details: { causes: [{ message }] }, code: 500,
  };
}

/** What the error stream carries: JSON for v4 and later, the bare message (failures only) before. */
export function statusPayload(status: Status, asJSON: boolean): Buffer | undefined {
  if (asJSON) return Buffer.from(JSON.stringify(status));
  if (status.status === 'Success') return undefined;
  return Buffer.from(status.message ?? '');
}

/**
 * Buffers client events until the command attaches its handlers, so nothing
 * typed before the command started is lost.
 */
export class ClientEvents {
  private stdinQueue: (Buffer | null)[] = [];
  private stdinHandler?: (d: Buffer | null) => void;
  private stdinEnded = false;
  private resizeQueue: TerminalSize[] = [];
  private resizeHandler?: (s: TerminalSize) => void;
  private closed = false;
  private closeHandlers: (() => void)[] = [];

  stdin(d: Buffer | null): void {
    if (this.stdinEnded) return;
    if (d === null) this.stdinEnded = true;
    if (this.stdinHandler) this.stdinHandler(d); else this.stdinQueue.push(d);
  }

  resize(s: TerminalSize): void {
    if (this.resizeHandler) this.resizeHandler(s); else this.resizeQueue.push(s);
  }

  close(): void {
    if (this.closed) return;
    this.stdin(null);
    this.closed = true;
    for (const f of this.closeHandlers.splice(0)) f();
  }

  onStdin(f: (d: Buffer | null) => void): void {
    this.stdinHandler = f;
    for (const d of this.stdinQueue.splice(0)) f(d);
  }

  onResize(f: (s: TerminalSize) => void): void {
    this.resizeHandler = f;
    for (const s of this.resizeQueue.splice(0)) f(s);
  }

  onClose(f: () => void): void {
    if (this.closed) queueMicrotask(f); else this.closeHandlers.push(f);
  }
}

/** Resize messages are JSON TerminalSize objects ({"Width":80,"Height":24}), possibly several per chunk. */
export function parseResizeMessages(text: string): TerminalSize[] {
  const out: TerminalSize[] = [];
  for (const part of text.split('\n')) {
    if (!part.trim()) continue;
    try {
      const o = JSON.parse(part) as { Width?: number; Height?: number };
      out.push({ width: o.Width ?? 0, height: o.Height ?? 0 });
    } catch { /* the kubelet logs and skips undecodable sizes */ }
  }
  return out;
}
