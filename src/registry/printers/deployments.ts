/** Deployments: printDeployment (descriptions from extensions/v1beta1, as upstream takes them). */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, int, layoutContainerCells, nameOf } from './cells.js';
import { selectorString } from '../../selectors/labels.js';

export const deploymentPrinter: Printer = {
  columns: [
    nameColumn,
    column('Ready', 'string', 'Number of the pod with ready state'),
    column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
    column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    // Unlike the other workloads, upstream prints the raw selector string here: "" when empty.
    const selector = selectorString(obj?.spec?.selector) ?? '<invalid>';
    return [
      nameOf(obj), `${int(obj?.status?.readyReplicas)}/${int(obj?.spec?.replicas)}`,
      int(obj?.status?.updatedReplicas), int(obj?.status?.availableReplicas), ageOf(obj, now),
      names, images, selector,
    ];
  },
};
