/** The documentation pages the checks' explanations come from. */
export const WINDOWS_DEBUGGING_TIPS = 'https://kubernetes.io/docs/tasks/debug/debug-cluster/windows/';
export const WINDOWS_USER_GUIDE_OS_WORKLOADS = 'https://kubernetes.io/docs/concepts/windows/user-guide/#ensuring-os-specific-workloads-land-on-the-appropriate-container-host';
export const WINDOWS_INTRO_PAUSE = 'https://kubernetes.io/docs/concepts/windows/intro/#pause-container';
export const WINDOWS_VERSION_COMPATIBILITY = 'https://learn.microsoft.com/virtualization/windowscontainers/deploy-containers/version-compatibility';
export const DNS_WINDOWS = 'https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#dns-windows';
export const VERSION_SKEW_KUBELET = 'https://kubernetes.io/releases/version-skew-policy/#kubelet';
export const WINDOWS_NETWORKING_LIMITATIONS = 'https://kubernetes.io/docs/concepts/services-networking/windows-networking/#limitations';
export const DEBUG_CLUSTER = 'https://kubernetes.io/docs/tasks/debug/debug-cluster/';
