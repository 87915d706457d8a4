import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { normalizedImageName } from '../pod-info.js';

const MB = 1024 * 1024;
const MIN_THRESHOLD = 23 * MB;
const MAX_CONTAINER_THRESHOLD = 1000 * MB;

interface ImageState { images: string[]; spread: number[] }

/**
 * ImageLocality: nodes that already hold the pod's images score higher, by
 * image size scaled by how widely the image is spread over the cluster.
 */
export function imageLocality(): Plugin {
  return {
    name: 'ImageLocality',
    preScore(state, pod, _nodes, snap) {
      const spec = pod.pod.spec ?? {};
      const images = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c: any) => normalizedImageName(String(c?.image ?? '')));
      // Each image's spread over the cluster is the same for every node of the cycle: computed once here.
      const total = snap.nodes.length;
      state.set('ImageLocality', { images, spread: images.map((img) => snap.imageNodeCount(img) / total) } satisfies ImageState);
      return { code: 0, reasons: [] };
    },
    score(state, _pod, node) {
      const { images, spread } = state.get('ImageLocality') as ImageState;
      let sum = 0;
      if (node.images.size) {
        // Indexed, without a callback: this runs for every feasible node.
        for (let i = 0; i < images.length; i++) {
          const image = images[i];
          const size = image === undefined ? undefined : node.images.get(image);
          if (size === undefined) continue;
          sum += Math.trunc(size * (spread[i] ?? 0));
        }
      }
      const maxThreshold = MAX_CONTAINER_THRESHOLD * images.length;
      if (sum < MIN_THRESHOLD) sum = MIN_THRESHOLD; else if (sum > maxThreshold) sum = maxThreshold;
      return Math.trunc(MAX_NODE_SCORE * (sum - MIN_THRESHOLD) / (maxThreshold - MIN_THRESHOLD));
    },
  };
}
