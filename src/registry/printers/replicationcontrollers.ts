/** ReplicationControllers: printReplicationController. */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, formatLabels, int, layoutContainerCells, nameOf } from './cells.js';

export const replicationControllerPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller'),
    column('Ready', 'integer', 'The number of ready replicas for this replication controller.'),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', 'Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    return [
      nameOf(obj), int(obj?.spec?.replicas), int(obj?.status?.replicas), int(obj?.status?.readyReplicas), ageOf(obj, now),
      names, images, formatLabels(obj?.spec?.selector),
    ];
  },
};
