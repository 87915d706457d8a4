import type { Plugin } from '../framework.js';
import { SUCCESS, unresolvable } from '../status.js';

/** SchedulingGates: a pod with gates waits outside the queue until they are all removed. */
export function schedulingGates(): Plugin {
  return {
    name: 'SchedulingGates',
    preEnqueue(pod) {
      const gates: any[] = pod.pod.spec?.schedulingGates ?? [];
      if (gates.length === 0) return SUCCESS;
      // fmt.Sprintf("%v") of a []string: "[a b]".
      return unresolvable(`waiting for scheduling gates: [${gates.map((g) => g?.name).join(' ')}]`);
    },
  };
}
