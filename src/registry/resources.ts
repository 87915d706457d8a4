import { coreResources } from './core/index.js';
import { groupResources } from './groups/index.js';
import { reviewResources } from './auth/index.js';
import { defaultPrinter, printers } from './printers/index.js';
import type { ResourceDef } from './types.js';

/** Every served resource, with its printer attached. */
export function allResources(): ResourceDef[] {
  return [...coreResources, ...groupResources, ...reviewResources].map((d) => ({
    ...d,
    printer: d.printer ?? printers[`${d.group}/${d.resource}`] ?? defaultPrinter,
  }));
}
