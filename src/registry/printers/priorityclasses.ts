/** PriorityClasses: printPriorityClass. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, int, nameOf } from './cells.js';

export const priorityClassPrinter: Printer = {
  columns: [
    nameColumn,
    column('Value', 'integer', 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
    column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.'),
    ageColumn,
    column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), int(obj?.value), obj?.globalDefault === true, ageOf(obj, now), obj?.preemptionPolicy ?? ''];
  },
};
