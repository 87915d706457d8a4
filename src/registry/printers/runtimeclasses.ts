/** RuntimeClasses: printRuntimeClass. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const runtimeClassPrinter: Printer = {
  // Upstream looks the Handler description up in ObjectMeta's docs, which have none: it is empty.
  columns: [nameColumn, column('Handler', 'string', ''), ageColumn],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), obj?.handler ?? '', ageOf(obj, now)];
  },
};
