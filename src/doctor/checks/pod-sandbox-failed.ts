/**
 * Pods stuck before their containers start on a Windows node because the
 * runtime cannot create the pod sandbox: the kubelet records each attempt
 * as a FailedCreatePodSandBox event ("Failed to create pod sandbox: ...").
 * The troubleshooting guide's first node-level item: a pause image that
 * does not fit the node's Windows version.
 */
import type { Event, Pod } from 'kubernetes-types/core/v1.js';
import type { Check, DoctorFinding } from '../types.js';
import { isLivePod, nodeOfPod, podRef } from '../cluster-facts.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

export const SANDBOX_EVENT_REASON = 'FailedCreatePodSandBox';

const eventTime = (e: Event): string => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? '';

/** A pod none of whose containers has started (the sandbox comes first). */
function noContainerStarted(pod: Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.every((s) => !s.state?.running && !s.state?.terminated && !s.lastState?.terminated && !s.lastState?.running);
}

/** The pod's newest event of this reason. */
export function latestPodEvent(events: readonly Event[], pod: Pod, reason: string): Event | undefined {
  const uid = pod.metadata?.uid;
  return events
    .filter((e) => e.reason === reason && e.involvedObject.kind === 'Pod'
      && (uid && e.involvedObject.uid ? e.involvedObject.uid === uid
        : e.involvedObject.name === pod.metadata?.name && e.involvedObject.namespace === pod.metadata?.namespace))
    .sort((a, b) => eventTime(a).localeCompare(eventTime(b)))
    .at(-1);
}

export const podSandboxFailed: Check = {
  id: 'pod-sandbox-failed',
  title: 'pods on Windows nodes whose sandbox (pause container) cannot be created',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const pod of c.pods) {
      const node = nodeOfPod(c, pod);
      if (node?.os !== 'windows' || !isLivePod(pod) || !noContainerStarted(pod)) continue;
      const e = latestPodEvent(c.events, pod, SANDBOX_EVENT_REASON);
      if (!e) continue;
      const count = e.count && e.count > 1 ? ` (x${e.count})` : '';
      out.push({
        check: this.id, severity: 'error', object: podRef(pod),
        evidence: [`event ${SANDBOX_EVENT_REASON}${count}: ${e.message ?? ''}`],
        message: `pod is stuck in ContainerCreating on Windows node ${node.name}: the pod sandbox cannot be created`,
        explanation: 'My Pods are stuck at "Container Creating" or restarting over and over: ensure that your pause image is compatible with your Windows OS version. '
          + 'If using containerd as your container runtime the pause image is specified in the plugins.plugins.cri.sandbox_image field of the config.toml configuration file.',
        fix: `set containerd's sandbox_image (and the kubelet's --pod-infra-container-image) on ${node.name} to a pause image with ${node.build ? `a Windows build ${node.build}` : "the node's Windows"} variant, such as registry.k8s.io/pause:3.10, and restart containerd`,
        reference: WINDOWS_DEBUGGING_TIPS,
      });
    }
    return out;
  },
};
