/** Secrets: printSecret. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const secretPrinter: Printer = {
  columns: [
    nameColumn,
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
    column('Data', 'string', "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4"),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), obj?.type ?? '', Object.keys(obj?.data ?? {}).length, ageOf(obj, now)];
  },
};
