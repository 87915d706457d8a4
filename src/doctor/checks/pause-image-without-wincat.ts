/**
 * Port-forward into a Windows pod runs wincat inside its pause container,
 * so a Windows node whose pause image lacks it fails every
 * `kubectl port-forward` with "unable to do port forwarding: wincat not
 * found". The node's images (status.images) show which pause image its
 * runtime pulled; the Kubernetes and Microsoft pause images carry wincat
 * (src/os/wincat.ts), a pause image of one's own is taken to lack it. The
 * list does not say which image is the sandbox image (a node may hold the
 * default one too), so any pause image without wincat is reported.
 */
import type { Check, DoctorFinding } from '../types.js';
import { clusterFacts } from '../cluster-facts.js';
import { sandboxImageHasWincat, WINCAT_NOT_FOUND } from '../../os/wincat.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

/** A repository whose last path element is `pause` (or `pause-<something>`) and the registry's digests left out. */
const PAUSE_REPOSITORY = /(^|\/)pause([-_][^/:@]*)?(:[^/@]*)?(@.*)?$/;

export function pauseImagesOf(images: ReadonlyArray<{ names?: string[] }>): string[] {
  return images.flatMap((i) => i.names ?? []).filter((n) => !n.includes('@') && PAUSE_REPOSITORY.test(n));
}

export const pauseImageWithoutWincat: Check = {
  id: 'pause-image-without-wincat',
  title: 'Windows nodes whose pause image has no wincat (kubectl port-forward fails)',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const n of clusterFacts(c).windowsNodes) {
      const pauses = pauseImagesOf(n.node.status?.images ?? []).filter((p) => !sandboxImageHasWincat(p));
      if (pauses.length === 0) continue;
      out.push({
        check: this.id, severity: 'warning', object: { apiVersion: 'v1', kind: 'Node', name: n.name },
        evidence: pauses.map((p) => `status.images: ${p}`),
        message: `${n.name} holds pause image ${pauses.join(', ')}, not one known to carry wincat: as the sandbox image, kubectl port-forward to the node's pods fails with "${WINCAT_NOT_FOUND}"`,
        explanation: 'kubectl port-forward fails with "unable to do port forwarding: wincat not found": this was implemented in Kubernetes 1.15 by including wincat.exe in the pause infrastructure container mcr.microsoft.com/oss/kubernetes/pause:3.6. '
          + 'If you would like to build your own pause infrastructure container be sure to include wincat.',
        fix: `use registry.k8s.io/pause:3.10 (or mcr.microsoft.com/oss/kubernetes/pause:3.6) as containerd's sandbox_image on ${n.name}, or build yours with wincat.exe`,
        reference: WINDOWS_DEBUGGING_TIPS,
      });
    }
    return out;
  },
};
