/**
 * ResourceQuotas: printResourceQuota as of v1.32, where Age comes second
 * (upstream moved it last in v1.33).
 */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, byteOrder, nameOf } from './cells.js';
import { quantityString } from './quantity.js';

/** "resource: used/hard" pairs, limits.* in the Limit column and the rest in Request. */
function usage(rq: any): [string, string] {
  const hard = rq?.status?.hard ?? {};
  const used = rq?.status?.used ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const r of Object.keys(hard).sort(byteOrder)) {
    const pieces = r.split('.');
    const into = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    into.push(`${r}: ${quantityString(used[r])}/${quantityString(hard[r])}`);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaPrinter: Printer = {
  columns: [
    nameColumn,
    ageColumn,
    column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
  ],
  cells(obj: any, now: number): unknown[] {
    const [request, limit] = usage(obj);
    return [nameOf(obj), ageOf(obj, now), request, limit];
  },
};
