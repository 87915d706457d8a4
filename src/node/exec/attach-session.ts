import type { ContainerLogReader } from '../../apimachinery/container-log.js';
import type { RemoteCommandConnection } from '../../apimachinery/remotecommand.js';
import { successStatus } from '../../apimachinery/remotecommand.js';
import { outputOf } from './exec-session.js';

/**
 * `kubectl attach`: the running container instance's output from now on, as
 * the runtime's attach streams it, until the container exits (then success,
 * as containerd's attach ends without error) or the client leaves. The
 * emulated main process has no reader for stdin, so typed input is dropped.
 */
export function runAttach(conn: RemoteCommandConnection, logs: ContainerLogReader, podUID: string, container: string,
  restartCount: number): void {
  const out = outputOf(conn);
  conn.onStdin(() => {});
  const stop = logs.follow(podUID, container, restartCount, (line) => {
    if (line === null) { conn.finish(successStatus()); return; }
    if (line.stream === 'stdout') out.stdout(line.text + '\n');
    else out.stderr(line.text + '\n');
  });
  conn.onClose(() => stop());
}
