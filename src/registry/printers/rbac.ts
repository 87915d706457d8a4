/**
 * Roles, ClusterRoles, RoleBindings, ClusterRoleBindings: printRole,
 * printClusterRole, printRoleBinding, printClusterRoleBinding (one column
 * set per pair, as upstream registers them).
 */
import type { Printer } from '../types.js';
import { AGE_DESC, ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

/** Role and ClusterRole: the creation time in RFC 3339, not an age. */
export const rolePrinter: Printer = {
  columns: [nameColumn, column('Created At', 'date', AGE_DESC)],
  cells(obj: any): unknown[] {
    const ts = obj?.metadata?.creationTimestamp;
    return [nameOf(obj), typeof ts === 'string' ? ts : '0001-01-01T00:00:00Z'];
  },
};

/** rbac.SubjectsStrings: users, groups and "namespace/name" service accounts (other kinds are not printed). */
function subjectsStrings(subjects: unknown): [string[], string[], string[]] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of Array.isArray(subjects) ? subjects : []) {
    const kind = s?.kind;
    if (kind === 'ServiceAccount') sas.push(`${s?.namespace ?? ''}/${s?.name ?? ''}`);
    else if (kind === 'User') users.push(s?.name ?? '');
    else if (kind === 'Group') groups.push(s?.name ?? '');
  }
  return [users, groups, sas];
}

/** RoleBinding and ClusterRoleBinding; the server always fills the wide columns (kubectl shows them with -o wide). */
export const roleBindingPrinter: Printer = {
  columns: [
    nameColumn,
    column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.'),
    ageColumn,
    column('Users', 'string', 'Users in the roleBinding', 1),
    column('Groups', 'string', 'Groups in the roleBinding', 1),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  cells(obj: any, now: number): unknown[] {
    const ref = obj?.roleRef ?? {};
    const [users, groups, sas] = subjectsStrings(obj?.subjects);
    return [nameOf(obj), `${ref.kind ?? ''}/${ref.name ?? ''}`, ageOf(obj, now), users.join(', '), groups.join(', '), sas.join(', ')];
  },
};
