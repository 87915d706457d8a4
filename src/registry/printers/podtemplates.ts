/** PodTemplates: printPodTemplate. Upstream shows no Age here. */
import type { Printer } from '../types.js';
import { column, containerColumns, nameColumn } from './columns.js';
import { formatLabels, layoutContainerCells, nameOf } from './cells.js';

export const podTemplatePrinter: Printer = {
  columns: [nameColumn, ...containerColumns(0), column('Pod Labels', 'string', 'The labels for the pod template.')],
  cells(obj: any): unknown[] {
    const [names, images] = layoutContainerCells(obj?.template?.spec?.containers);
    return [nameOf(obj), names, images, formatLabels(obj?.template?.metadata?.labels)];
  },
};
