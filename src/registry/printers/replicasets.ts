/** ReplicaSets: printReplicaSet (descriptions from extensions/v1beta1, as upstream takes them). */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, int, layoutContainerCells, nameOf } from './cells.js';
import { formatLabelSelector } from '../../selectors/labels.js';

export const replicaSetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller'),
    column('Current', 'integer', 'Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/#what-is-a-replicationcontroller'),
    column('Ready', 'integer', 'The number of ready replicas for this replica set.'),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', 'Selector is a label query over pods that should match the replica count. If the selector is empty, it is defaulted to the labels present on the pod template. Label keys and values that must match in order to be controlled by this replica set. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    return [
      nameOf(obj), int(obj?.spec?.replicas), int(obj?.status?.replicas), int(obj?.status?.readyReplicas), ageOf(obj, now),
      names, images, formatLabelSelector(obj?.spec?.selector),
    ];
  },
};
