import type { KObject } from '../apimachinery/object.js';
import type { Printer, ResourceDef } from '../registry/types.js';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function partialObject(obj: KObject): KObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export interface TableMeta { resourceVersion?: string; continue?: string; remainingItemCount?: number }

/** A meta.k8s.io/v1 Table of the objects, with upstream's columns for their kind. */
export function toTable(printer: Printer, objs: KObject[], meta: TableMeta, include: IncludeObject, now = Date.now()): KObject {
  const rows = objs.map((o) => {
    const row: Record<string, unknown> = { cells: printer.cells(o, now) };
    const conditions = printer.rowConditions?.(o);
    if (conditions) row.conditions = conditions;
    // TableRow.object is a RawExtension without omitempty: None serializes as null.
    row.object = include === 'Metadata' ? partialObject(o) : include === 'Object' ? o : null;
    return row;
  });
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta,
    columnDefinitions: printer.columns, rows,
  } as unknown as KObject;
}

export function listKind(def: ResourceDef): string {
  return `${def.kind}List`;
}
