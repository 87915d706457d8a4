/** ControllerRevisions: printControllerRevision (Revision's description is apps/v1beta1's). */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, controllerOf, int, nameOf } from './cells.js';

/** formatResourceName(gvk.GroupKind(), name, true): "daemonset.apps/web", or the bare name. */
function controllerName(obj: any): string {
  const ref = controllerOf(obj);
  if (!ref) return '<none>';
  const apiVersion = String(ref.apiVersion ?? '');
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = String(ref.kind ?? '');
  if (group === '' && kind === '') return ref.name ?? '';
  const groupKind = group === '' ? kind : `${kind}.${group}`;
  return `${groupKind.toLowerCase()}/${ref.name ?? ''}`;
}

export const controllerRevisionPrinter: Printer = {
  columns: [
    nameColumn,
    column('Controller', 'string', 'Controller of the object'),
    column('Revision', 'string', 'revision indicates the revision of the state represented by Data.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), controllerName(obj), int(obj?.revision), ageOf(obj, now)];
  },
};
