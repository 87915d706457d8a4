/**
 * The apiserver's default table (rest.NewDefaultTableConvertor) for resources without a
 * printer, such as LimitRanges and RBAC objects: Name and "Created At" as an RFC 3339 date.
 */
import type { Printer } from '../types.js';
import { AGE_DESC, column, nameColumn } from './columns.js';
import { nameOf } from './cells.js';
import { instant } from './duration.js';

/** metav1.Time in UTC at second precision, as Go's time.RFC3339 layout writes it. */
function createdAt(obj: any): string {
  const t = instant(obj?.metadata?.creationTimestamp);
  if (t === -Infinity) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export const defaultPrinter: Printer = {
  columns: [nameColumn, column('Created At', 'date', AGE_DESC)],
  cells(obj: any): unknown[] {
    return [nameOf(obj), createdAt(obj)];
  },
};
