/** Cell helpers shared by the printers, each mirroring the upstream helper it names. */
import { byteOrder } from '../../selectors/labels.js';
import { since } from './duration.js';

export function nameOf(obj: any): string {
  return obj?.metadata?.name ?? '';
}

/** translateTimestampSince(obj.CreationTimestamp). */
export function ageOf(obj: any, now: number): string {
  return since(obj?.metadata?.creationTimestamp, now);
}

/** A JSON integer field as the int64 upstream puts in a cell (absent reads as Go's zero). */
export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** layoutContainerCells: container names and images, comma-joined. */
export function layoutContainerCells(containers: any[] | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c?.name ?? '').join(','), list.map((c) => c?.image ?? '').join(',')];
}

/** labels.FormatLabels: "k=v" pairs in key order, or "<none>". */
export function formatLabels(labels: Record<string, string> | undefined | null): string {
  const keys = Object.keys(labels ?? {}).sort(byteOrder);
  return keys.length ? keys.map((k) => `${k}=${labels![k]}`).join(',') : '<none>';
}

/** printBoolPtr: "True"/"False", or "<unset>" for a nil pointer. */
export function printBoolPtr(v: unknown): string {
  if (typeof v !== 'boolean') return '<unset>';
  return v ? 'True' : 'False';
}


/** metav1.GetControllerOf: the first owner reference marked as controller. */
export function controllerOf(obj: any): any {
  return (obj?.metadata?.ownerReferences ?? []).find((r: any) => r?.controller === true);
}

export { byteOrder };
