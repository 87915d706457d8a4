/** ConfigMaps: printConfigMap. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const configMapPrinter: Printer = {
  columns: [
    nameColumn,
    column('Data', 'string', "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    const keys = Object.keys(obj?.data ?? {}).length + Object.keys(obj?.binaryData ?? {}).length;
    return [nameOf(obj), keys, ageOf(obj, now)];
  },
};
