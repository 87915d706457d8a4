/** CronJobs: printCronJob (descriptions from batch/v1beta1, as upstream takes them). */
import type { Printer } from '../types.js';
import { ageColumn, column, containerColumns, nameColumn } from './columns.js';
import { ageOf, layoutContainerCells, nameOf, printBoolPtr } from './cells.js';
import { since } from './duration.js';
import { JOB_SELECTOR_DESC } from './jobs.js';
import { formatLabelSelector } from '../../selectors/labels.js';

export const cronJobPrinter: Printer = {
  columns: [
    nameColumn,
    column('Schedule', 'string', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    column('Timezone', 'string', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones'),
    column('Suspend', 'boolean', 'This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.'),
    column('Active', 'integer', 'A list of pointers to currently running jobs.'),
    column('Last Schedule', 'string', 'Information when was the last time the job was successfully scheduled.'),
    ageColumn,
    ...containerColumns(1),
    column('Selector', 'string', JOB_SELECTOR_DESC, 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const jobSpec = obj?.spec?.jobTemplate?.spec;
    const [names, images] = layoutContainerCells(jobSpec?.template?.spec?.containers);
    const last = obj?.status?.lastScheduleTime ? since(obj.status.lastScheduleTime, now) : '<none>';
    return [
      nameOf(obj), obj?.spec?.schedule ?? '', obj?.spec?.timeZone ?? '<none>', printBoolPtr(obj?.spec?.suspend),
      (obj?.status?.active ?? []).length, last, ageOf(obj, now),
      names, images, formatLabelSelector(jobSpec?.selector),
    ];
  },
};
