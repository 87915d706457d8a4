/** Jobs: printJob. */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, int, layoutContainerCells, nameOf } from './cells.js';
import { humanDuration, instant } from './duration.js';
import { formatLabelSelector } from '../../selectors/labels.js';

export const JOB_SELECTOR_DESC = 'A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors';

/** hasJobCondition: the first condition of the type decides. */
function hasCondition(job: any, type: string): boolean {
  const c = (job?.status?.conditions ?? []).find((x: any) => x?.type === type);
  return c?.status === 'True';
}

function jobStatus(job: any): string {
  if (hasCondition(job, 'Complete')) return 'Complete';
  if (hasCondition(job, 'Failed')) return 'Failed';
  if (job?.metadata?.deletionTimestamp) return 'Terminating';
  if (hasCondition(job, 'Suspended')) return 'Suspended';
  if (hasCondition(job, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completions(job: any): string {
  const succeeded = int(job?.status?.succeeded);
  if (typeof job?.spec?.completions === 'number') return `${succeeded}/${int(job.spec.completions)}`;
  const parallelism = int(job?.spec?.parallelism);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: any, now: number): string {
  const start = instant(job?.status?.startTime);
  if (start === -Infinity) return '';
  const end = instant(job?.status?.completionTime);
  return humanDuration((end === -Infinity ? now : end) - start);
}

export const jobPrinter: Printer = {
  columns: [
    nameColumn,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.'),
    column('Duration', 'string', 'Time required to complete the job.'),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', JOB_SELECTOR_DESC, 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const [names, images] = layoutContainerCells(obj?.spec?.template?.spec?.containers);
    return [
      nameOf(obj), jobStatus(obj), completions(obj), jobDuration(obj, now), ageOf(obj, now),
      names, images, formatLabelSelector(obj?.spec?.selector),
    ];
  },
};
