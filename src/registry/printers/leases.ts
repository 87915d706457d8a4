/** Leases: printLease. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const leasePrinter: Printer = {
  columns: [
    nameColumn,
    column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), obj?.spec?.holderIdentity ?? '', ageOf(obj, now)];
  },
};
