/**
 * The validating half of the Priority admission plugin
 * (plugin/pkg/admission/priority/admission.go, Validate → validatePriorityClass):
 * only one PriorityClass may be the global default. Its mutating half, which
 * gives pods their priority, lives with the pods (registry/core/pod-admission.ts).
 */
import { listAll } from './lookup.js';
import type { KObject } from '../apimachinery/object.js';
import { forbidden, type AdmissionAttributes, type AdmissionPlugin } from './types.js';

/**
 * getDefaultPriorityClass: the class marked globalDefault; when a race let
 * several in, the one with the lowest value (the one pods get).
 */
async function defaultPriorityClass(a: AdmissionAttributes): Promise<KObject | undefined> {
  let found: KObject | undefined;
  for (const pc of await listAll(a.lookup, 'scheduling.k8s.io', 'priorityclasses', '')) {
    if (pc.globalDefault === true && (!found || Number(found.value ?? 0) > Number(pc.value ?? 0))) found = pc;
  }
  return found;
}

export const priority: AdmissionPlugin = {
  name: 'Priority',
  async validate(a) {
    if (a.subresource !== '' || a.def.group !== 'scheduling.k8s.io' || a.def.resource !== 'priorityclasses') return;
    if (a.object.globalDefault !== true) return;
    const current = await defaultPriorityClass(a);
    if (!current) return;
    // Re-saving the default class itself is allowed; a second one, created or updated into it, is not.
    if (a.operation === 'CREATE' || current.metadata?.name !== a.object.metadata?.name) {
      throw forbidden(a, `PriorityClass ${current.metadata?.name} is already marked as default. Only one default can exist`);
    }
  },
};
