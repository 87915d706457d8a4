/** DaemonSets: printDaemonSet (descriptions from extensions/v1beta1, as upstream takes them). */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, formatLabels, int, layoutContainerCells, nameOf } from './cells.js';
import { formatLabelSelector } from '../../selectors/labels.js';

export const daemonSetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
    column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
    column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
    column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
    column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
    column('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const s = obj?.status ?? {};
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    return [
      nameOf(obj), int(s.desiredNumberScheduled), int(s.currentNumberScheduled), int(s.numberReady),
      int(s.updatedNumberScheduled), int(s.numberAvailable), formatLabels(obj?.spec?.template?.spec?.nodeSelector),
      ageOf(obj, now), names, images, formatLabelSelector(obj?.spec?.selector),
    ];
  },
};
