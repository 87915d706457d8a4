/** StatefulSets: printStatefulSet. */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, int, layoutContainerCells, nameOf } from './cells.js';

export const statefulSetPrinter: Printer = {
  columns: [nameColumn, column('Ready', 'string', 'Number of the pod with ready state'), ageColumn, ...containerColumns(1)],
  cells(obj: any, now: number): unknown[] {
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    return [nameOf(obj), `${int(obj?.status?.readyReplicas)}/${int(obj?.spec?.replicas)}`, ageOf(obj, now), names, images];
  },
};
