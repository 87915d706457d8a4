import type { Status } from 'kubernetes-types/meta/v1.js';
import { parseBool } from '../query.js';
import type { StreamOptions, TerminalSize } from '../../apimachinery/remotecommand.js';

/**
 * Parses exec/attach options from the query. The API server reads them as
 * PodExecOptions booleans; the kubelet then drops stderr under a TTY and
 * refuses a request with no stream at all.
 */
export function parseStreamOptions(q: URLSearchParams): StreamOptions | { error: string } {
  const tty = parseBool(q.get('tty'), 'tty') === true;
  const stdin = parseBool(q.get('stdin'), 'stdin') === true;
  const stdout = parseBool(q.get('stdout'), 'stdout') === true;
  let stderr = parseBool(q.get('stderr'), 'stderr') === true;
  if (tty && stderr) stderr = false;
  if (!stdin && !stdout && !stderr) return { error: 'you must specify at least 1 of stdin, stdout, stderr' };
  return { stdin, stdout, stderr, tty };
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
