/**
 * The session side of exec and attach (k8s.io/apimachinery's
 * util/remotecommand and the kubelet's streaming server): what a running
 * command sees of its client and the Status it ends with. The API server's
 * transports implement the connection; the node's shells run on it.
 */
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
