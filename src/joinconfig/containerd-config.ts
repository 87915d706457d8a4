/**
 * containerd's config.toml for the node (containerd 1.7, config version 2):
 * what Install-Containerd.ps1 changes in `containerd config default` (the
 * CRI plugin's CNI bin and conf directories) plus the sandbox image the
 * kubelet is told about, and the process-isolation runtime Windows pods run
 * in (runhcs-wcow-process, io.containerd.runhcs.v1: Kubernetes supports
 * process isolation only). Everything else keeps containerd's defaults.
 */
import type { JoinSettings } from './join-settings.js';
import { CNI_BIN_DIR, CNI_CONF_DIR } from './windows-paths.js';

const CRI = 'plugins."io.containerd.grpc.v1.cri"';

export function containerdConfigToml(s: JoinSettings): string {
  return [
    'version = 2',
    'root = "C:\\\\ProgramData\\\\containerd\\\\root"',
    'state = "C:\\\\ProgramData\\\\containerd\\\\state"',
    '',
    '[grpc]',
    '  address = "\\\\\\\\.\\\\pipe\\\\containerd-containerd"',
    '',
    `[${CRI}]`,
    `  sandbox_image = "${s.sandboxImage}"`,
    '',
    `[${CRI}.cni]`,
    `  bin_dir = "${CNI_BIN_DIR}"`,
    `  conf_dir = "${CNI_CONF_DIR}"`,
    '',
    `[${CRI}.containerd]`,
    '  default_runtime_name = "runhcs-wcow-process"',
    '',
    `[${CRI}.containerd.runtimes.runhcs-wcow-process]`,
    '  runtime_type = "io.containerd.runhcs.v1"',
    '',
  ].join('\n');
}
