/** Column definitions shared by upstream's printers (pkg/printers/internalversion). */
import type { TableColumn } from '../types.js';

/** A column in Table JSON's key order: name, type, format, description, priority. */
export function column(name: string, type: string, description: string, priority = 0, format = ''): TableColumn {
  return { name, type, format, description, priority };
}

/** ObjectMeta's `name` doc, which every Name column carries. */
export const NAME_DESC = 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names';

/** ObjectMeta's `creationTimestamp` doc, which every Age column carries. */
export const AGE_DESC = 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

export const nameColumn = column('Name', 'string', NAME_DESC, 0, 'name');
export const ageColumn = column('Age', 'string', AGE_DESC);

/** The Containers/Images pair workload printers show (wide-only except for pod templates). */
export function containerColumns(priority: number): TableColumn[] {
  return [
    column('Containers', 'string', 'Names of each container in the template.', priority),
    column('Images', 'string', 'Images referenced by each container in the template.', priority),
  ];
}
