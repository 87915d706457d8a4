/**
 * A Windows image on a Windows node whose build it was not made for: under
 * process isolation (the only isolation Kubernetes supports) the container's
 * build must match the host's (src/os's compatibility rule), so the pull
 * succeeds and creating the container fails. The image's builds come from
 * the image catalog or its tag (`winkube lint`'s image rules); images
 * neither names are not judged. HostProcess containers run on the host and
 * skip the check.
 */
import type { Check, DoctorFinding } from '../types.js';
import { containersWithPaths, isLivePod, nodeOfPod, podRef, waitingEvidence } from '../cluster-facts.js';
import { imageOS } from '../../lint/image-os.js';
import { processIsolationCompatible, WINDOWS_BUILD_LABEL } from '../../os/windows-versions.js';
import { isHostProcessContainer } from '../../os/windows-rules.js';
import type { Obj } from '../../lint/types.js';
import { WINDOWS_VERSION_COMPATIBILITY } from '../references.js';

export const windowsImageBuildMismatch: Check = {
  id: 'windows-image-build-mismatch',
  title: 'Windows images whose build does not match their node\'s Windows build',
  run(c) {
    const out: DoctorFinding[] = [];
    for (const pod of c.pods) {
      const node = nodeOfPod(c, pod);
      if (node?.os !== 'windows' || node.build === undefined || !isLivePod(pod)) continue;
      const host = node.build;
      for (const ctr of containersWithPaths(pod)) {
        const spec = (pod.spec ?? {}) as Obj;
        const container = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((x) => x.name === ctr.name) as Obj | undefined;
        if (container && isHostProcessContainer(spec, container)) continue;
        const os = imageOS(ctr.image);
        if (!os?.windows || os.windowsBuilds.length === 0 || os.windowsBuilds.some((b) => processIsolationCompatible(host, b))) continue;
        const label = node.node.metadata?.labels?.[WINDOWS_BUILD_LABEL];
        out.push({
          check: this.id, severity: 'error', object: podRef(pod),
          evidence: [
            `${ctr.path}.image: ${ctr.image} (Windows build${os.windowsBuilds.length > 1 ? 's' : ''} ${os.windowsBuilds.join(', ')})`,
            `node ${node.name} ${label ? `label ${WINDOWS_BUILD_LABEL}: ${label}` : `status.nodeInfo.kernelVersion: ${node.node.status?.nodeInfo?.kernelVersion ?? ''}`}`,
            ...waitingEvidence(ctr),
          ],
          message: `image ${ctr.image} was built for Windows build ${os.windowsBuilds.join(', ')} and cannot run on ${node.name} (build ${host}) under process isolation`,
          explanation: 'Windows containers with process isolation (the only isolation Kubernetes supports) must match the host\'s Windows build; from Windows Server 2025 on, a host also runs images of the previous LTSC build (Windows Server 2022). '
            + 'Otherwise the image pulls, and creating the container fails with "The container operating system does not match the host operating system." '
            + 'Ensure that your Pod is getting scheduled to a compatible Windows Node.',
          fix: `use an image tag for build ${host} (or a multi-arch tag), or pin the pod to matching nodes with nodeSelector ${WINDOWS_BUILD_LABEL}: "10.0.${os.windowsBuilds[0] ?? ''}"`,
          reference: WINDOWS_VERSION_COMPATIBILITY,
        });
      }
    }
    return out;
  },
};
