/** APIServices: kube-aggregator's own ConvertToTable (pkg/registry/apiservice/etcd): NAME SERVICE AVAILABLE AGE. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';
import { availableCondition, type APIService } from '../../apimachinery/apiservice.js';

export const apiServicePrinter: Printer = {
  columns: [
    nameColumn,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    ageColumn,
  ],
  cells(obj: APIService, now: number): unknown[] {
    const ref = obj.spec?.service;
    const service = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : 'Local';
    const cond = availableCondition(obj);
    let available = 'Unknown';
    if (cond) available = cond.status !== 'True' && cond.reason ? `${cond.status} (${cond.reason})` : cond.status;
    return [nameOf(obj), service, available, ageOf(obj, now)];
  },
};
