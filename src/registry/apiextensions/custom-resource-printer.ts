/**
 * The Table of a custom resource (apiextensions-apiserver pkg/registry/customresource/tableconvertor):
 * Name, then the version's additionalPrinterColumns, or the default Age column when it has none
 * (helpers.go serveDefaultColumnsIfEmpty).
 */
import type { CustomResourceColumnDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { Printer, TableColumn } from '../types.js';
import { AGE_DESC, column, nameColumn } from '../printers/columns.js';
import { nameOf } from '../printers/cells.js';
import { since } from '../printers/duration.js';
import { JSONPath, printJSONPathValue } from './jsonpath.js';

const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  { name: 'Age', type: 'date', description: AGE_DESC, jsonPath: '.metadata.creationTimestamp' },
];

/** cellForJSONValue: a value of the column's type, or null. */
function cellFor(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'integer': return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number': return typeof value === 'number' ? value : null;
    case 'boolean': return typeof value === 'boolean' ? value : null;
    case 'date': {
      if (typeof value !== 'string') return null;
      if (Number.isNaN(Date.parse(value))) return '<invalid>';
      return since(value, now);
    }
    default: return null;
  }
}

export function customResourcePrinter(defined: CustomResourceColumnDefinition[] | undefined): Printer {
  const cols = defined?.length ? defined : DEFAULT_COLUMNS;
  const paths = cols.map((c) => {
    try { return new JSONPath(c.jsonPath); } catch { return undefined; }
  });
  const columns: TableColumn[] = [nameColumn, ...cols.map((c) => column(c.name, c.type,
    c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, c.priority ?? 0, c.format ?? ''))];
  return {
    columns,
    cells(obj: unknown, now: number): unknown[] {
      const cells: unknown[] = [nameOf(obj)];
      cols.forEach((c, i) => {
        const found = paths[i]?.find(obj) ?? [];
        if (!found.length) { cells.push(null); return; }
        const v = found[0];
        cells.push(c.type === 'string' ? printJSONPathValue(v) : cellFor(c.type, v, now));
      });
      return cells;
    },
  };
}
