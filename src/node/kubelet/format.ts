/** Formatting as the kubelet's Go code prints things. */
import { createHash } from 'node:crypto';

/** time.Duration.String() of a millisecond count (after Truncate(time.Millisecond)): 0s, 523ms, 1.2s, 5m0s, 1h0m0s. */
export function goDuration(ms: number): string {
  ms = Math.max(0, Math.trunc(ms));
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sMs = ms % 60_000;
  const s = sMs % 1000 === 0 ? String(sMs / 1000) : (sMs / 1000).toFixed(3).replace(/0+$/, '');
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** format.Pod: `name_namespace(uid)`. */
export function formatPod(pod: { metadata: { name?: string; namespace?: string; uid?: string } }): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}

/** metav1.Time: RFC 3339 with seconds. */
export const rfc3339 = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A 64-hex container/sandbox ID (containerd's are random; ours are unique per instance). */
export function runtimeID(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('\0')).update(String(process.hrtime.bigint())).digest('hex');
}

/** A stable image digest for an image reference and platform: the model's repo digest. */
export function imageDigest(ref: string, platform: string): string {
  return 'sha256:' + createHash('sha256').update(`${ref}\0${platform}`).digest('hex');
}
