/**
 * Completion indexes of Indexed Jobs (indexed_job_utils.go): the
 * annotation/label a pod carries, and status.completedIndexes as ordered
 * intervals written "1,3-5,7".
 */
import type { KObject } from '../../apimachinery/object.js';

/** batch.JobCompletionIndexAnnotation (also the pod label, PodIndexLabel being on). */
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';

/** getCompletionIndex: -1 when absent or not a non-negative integer. */
export function completionIndex(pod: KObject): number {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return -1;
  const i = Number(v);
  return i < 0 ? -1 : i;
}

/** parseIndexesFromString, ignoring malformed parts and indexes ≥ completions. */
export function parseIndexes(s: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (s ?? '').split(',')) {
    if (!part) continue;
    const [a, b] = part.split('-');
    const first = Number(a); const last = b === undefined ? first : Number(b);
    if (!Number.isInteger(first) || !Number.isInteger(last)) continue;
    for (let i = first; i <= last && i < completions; i++) out.add(i);
  }
  return out;
}

/** orderedIntervals.String(): runs of consecutive indexes as "a-b", single ones as "a". */
export function formatIndexes(set: Iterable<number>): string {
  const xs = [...set].sort((a, b) => a - b);
  const parts: string[] = [];
  let run: [number, number] | undefined;
  const close = (r: [number, number]) => parts.push(r[0] === r[1] ? String(r[0]) : `${r[0]}-${r[1]}`);
  for (const x of xs) {
    if (run && x === run[1] + 1) { run[1] = x; continue; }
    if (run) close(run);
    run = [x, x];
  }
  if (run) close(run);
  return parts.join(',');
}

/** podGenerateNameWithIndex: `<job>-<index>-`, the job name cut to fit 58 characters. */
export function generateNameWithIndex(jobName: string, index: number): string {
  const suffix = `-${index}-`;
  const prefix = jobName + suffix;
  return prefix.length > 58 ? jobName.slice(0, 58 - suffix.length) + suffix : prefix;
}

/** addCompletionIndexEnvVariable: JOB_COMPLETION_INDEX from the index label, unless the container sets it. */
export function addIndexEnv(spec: Record<string, any>): void {
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if ((c.env ?? []).some((e: any) => e.name === 'JOB_COMPLETION_INDEX')) continue;
    (c.env ??= []).push({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } });
  }
}
