/**
 * A Linux-only image in a pod on a Windows node, or a Windows-only image on
 * a Linux node: the runtime finds no manifest for its platform and the pull
 * fails (ErrImagePull, then ImagePullBackOff). Usually the pod had no OS
 * selector and landed on the wrong OS. Which OS an image offers is `winkube
 * lint`'s knowledge (catalog, tag, Windows base names); unknown images are
 * not judged.
 */
import type { Check, DoctorFinding } from '../types.js';
import { containersWithPaths, isLivePod, nodeOfPod, podRef, waitingEvidence } from '../cluster-facts.js';
import { imageOS } from '../../lint/image-os.js';
import { WINDOWS_DEBUGGING_TIPS } from '../references.js';

export const imageOSMismatch: Check = {
  id: 'image-os-mismatch',
  title: 'Linux images on Windows nodes and Windows images on Linux nodes',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const pod of c.pods) {
      const node = nodeOfPod(c, pod);
      if (!node || !isLivePod(pod)) continue;
      for (const ctr of containersWithPaths(pod)) {
        const os = imageOS(ctr.image);
        if (!os) continue;
        const offersNodeOS = node.os === 'windows' ? os.windows : os.linux;
        if (offersNodeOS) continue;
        const imageIs = node.os === 'windows' ? 'Linux' : 'Windows';
        const nodeIs = node.os === 'windows' ? 'Windows' : 'Linux';
        out.push({
          check: this.id, severity: 'error', object: podRef(pod),
          evidence: [`${ctr.path}.image: ${ctr.image} (${imageIs} only)`, `spec.nodeName: ${node.name} (kubernetes.io/os: ${node.os})`, ...waitingEvidence(ctr)],
          message: `${imageIs} image ${ctr.image} on ${nodeIs} node ${node.name}`,
          explanation: 'My pods show status as ErrImgPull or ImagePullBackOff: ensure that your Pod is getting scheduled to a compatible Windows Node. '
            + `An image without a ${node.os} variant cannot run on a ${nodeIs} node; a pod without a kubernetes.io/os nodeSelector can be scheduled onto either OS.`,
          fix: `add nodeSelector kubernetes.io/os: ${node.os === 'windows' ? 'linux' : 'windows'} to the pod's template (or use a multi-OS image)`,
          reference: WINDOWS_DEBUGGING_TIPS,
        });
      }
    }
    return out;
  },
};
