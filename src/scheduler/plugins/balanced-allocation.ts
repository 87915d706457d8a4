import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { allocatableAndRequested, DEFAULT_RESOURCES, podRequestOf, type ResourceSpec } from './node-resources-fit.js';

/**
 * NodeResourcesBalancedAllocation: favours nodes whose resource fractions
 * (requests including the pod, over allocatable) stay close to each other.
 */
export function balancedAllocation(args: { resources?: ResourceSpec[] } = {}): Plugin {
  const resources = args.resources ?? DEFAULT_RESOURCES;
  return {
    name: 'NodeResourcesBalancedAllocation',
    score(_s, pod, node) {
      const fractions: number[] = [];
      let total = 0;
      for (const r of resources) {
        const [alloc, req] = allocatableAndRequested(node, r.name, podRequestOf(pod, r.name, true), true);
        if (alloc === 0) continue;
        const f = Math.min(req / alloc, 1);
        total += f;
        fractions.push(f);
      }
      let std = 0;
      if (fractions.length === 2) {
        std = Math.abs((fractions[0] - fractions[1]) / 2);
      } else if (fractions.length > 2) {
        const mean = total / fractions.length;
        let sum = 0;
        for (const f of fractions) sum += (f - mean) * (f - mean);
        std = Math.sqrt(sum / fractions.length);
      }
      return Math.trunc((1 - std) * MAX_NODE_SCORE);
    },
  };
}
