/** PodDisruptionBudgets: printPodDisruptionBudget. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, int, nameOf } from './cells.js';

/** intstr.IntOrString.String(), or "N/A" when unset. */
function intOrString(v: unknown): string {
  if (v === undefined || v === null) return 'N/A';
  return typeof v === 'number' ? String(int(v)) : String(v);
}

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    nameColumn,
    column('Min Available', 'string', 'The minimum number of pods that must be available.'),
    column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [
      nameOf(obj), intOrString(obj?.spec?.minAvailable), intOrString(obj?.spec?.maxUnavailable),
      int(obj?.status?.disruptionsAllowed), ageOf(obj, now),
    ];
  },
};
