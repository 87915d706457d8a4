/**
 * The kubelet's streaming side of exec and attach, as the API server is
 * given it: commands run in the shell a factory builds for the container,
 * attach follows the container instance's log.
 */
import type { ContainerLogReader } from '../../apimachinery/container-log.js';
import type { KObject } from '../../apimachinery/object.js';
import type { RemoteCommandConnection } from '../../apimachinery/remotecommand.js';
import { runAttach } from './attach-session.js';
import { runExec, type ExecShell } from './exec-session.js';
import type { ClusterNetwork } from '../net/cluster-network.js';
import { dialPodPort, sandboxID, type PodSandbox } from './port-forward.js';
import type { PortForwardTarget } from '../../apimachinery/port-forward.js';

/** Builds the shell a command runs in: the container's env, hostname, files, and its node's OS. */
export type ExecShellFactory = (pod: KObject, container: string, node: KObject | undefined) => ExecShell | Promise<ExecShell>;

export function kubeletContainerStreams(execShell: ExecShellFactory | undefined, logs: ContainerLogReader,
  network: () => ClusterNetwork | undefined = () => undefined, sandbox: (pod: KObject) => PodSandbox | undefined = () => undefined) {
  return {
    async exec(conn: RemoteCommandConnection, command: string[], pod: KObject, container: string, node: KObject | undefined): Promise<void> {
      if (!execShell) throw new Error('this node cannot run commands');
      await runExec(conn, command, await execShell(pod, container, node));
    },
    attach(conn: RemoteCommandConnection, pod: KObject, container: string, restartCount: number): void {
      runAttach(conn, logs, pod.metadata.uid ?? '', container, restartCount);
    },
    /** The CRI streaming server names the sandbox and leaves the uid empty. */
    portForward(pod: KObject): PortForwardTarget {
      return { pod: sandboxID(pod), uid: '', dial: async (port) => dialPodPort(network(), pod, port, sandbox(pod)) };
    },
  };
}
