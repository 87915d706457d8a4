import { MAX_NODE_SCORE, type Plugin } from '../framework.js';
import { allocatableAndRequested, DEFAULT_RESOURCES, podRequestOf, type ResourceSpec } from './node-resources-fit.js';

/**
 * NodeResourcesBalancedAllocation: favours nodes whose resource fractions
 * (requests including the pod, over allocatable) stay close to each other.
 */
export function balancedAllocation(args: { resources?: ResourceSpec[] } = {}): Plugin {
  const resources = args.resources ?? DEFAULT_RESOURCES;
  const defaultResources = resources.length === 2 && resources[0]?.name === 'cpu' && resources[1]?.name === 'memory';
  return {
    name: 'NodeResourcesBalancedAllocation',
    score(_s, pod, node) {
      if (defaultResources) {
        // The default cpu+memory case without arrays: |f1 - f2| / 2 is the standard deviation of two fractions.
        const ac = node.allocatable.milliCPU, am = node.allocatable.memory;
        if (ac !== 0 && am !== 0) {
          const fc = Math.min((node.requested.milliCPU + pod.requests.milliCPU) / ac, 1);
          const fm = Math.min((node.requested.memory + pod.requests.memory) / am, 1);
          return Math.trunc((1 - Math.abs((fc - fm) / 2)) * MAX_NODE_SCORE);
        }
      }
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
      const [f1, f2] = fractions;
      if (fractions.length === 2 && f1 !== undefined && f2 !== undefined) {
        std = Math.abs((f1 - f2) / 2);
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
