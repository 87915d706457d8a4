/** Namespaces: printNamespace. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const namespacePrinter: Printer = {
  columns: [nameColumn, column('Status', 'string', 'The status of the namespace'), ageColumn],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), obj?.status?.phase ?? '', ageOf(obj, now)];
  },
};
