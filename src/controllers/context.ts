import type { WriteContext } from '../registry/types.js';

/** The write context of an in-process controller. */
export function controllerContext(manager: string): WriteContext {
  return { namespace: '', now: new Date(), dryRun: false, fieldManager: manager, warn: () => {} };
}
