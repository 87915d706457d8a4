import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { normalizedImageName } from '../pod-info.js';

const MB = 1024 * 1024;
const MIN_THRESHOLD = 23 * MB;
const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/**
 * ImageLocality: nodes that already hold the pod's images score higher, by
 * image size scaled by how widely the image is spread over the cluster.
 */
export function imageLocality(): Plugin {
  return {
    name: 'ImageLocality',
    preScore(state, pod) {
      const spec = pod.pod.spec ?? {};
      const images = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c: any) => normalizedImageName(String(c?.image ?? '')));
      state.set('ImageLocality', images);
      return { code: 0, reasons: [] };
    },
    score(state, _pod, node, snap) {
      const images = state.get('ImageLocality') as string[];
      const total = snap.nodes.length;
      let sum = 0;
      if (node.images.size) {
        for (const img of images) {
          const size = node.images.get(img);
          if (size === undefined) continue;
          sum += Math.trunc(size * (snap.imageNodeCount(img) / total));
        }
      }
      const maxThreshold = MAX_CONTAINER_THRESHOLD * images.length;
      if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD; else if (sum > maxThreshold) sum = maxThreshold;
      return Math.trunc(MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (maxThreshold - MIN_THRESHOLD));
    },
  };
}
