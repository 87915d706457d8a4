/** Formatting as the kubelet's Go code prints things. */
import { createHash } from 'node:crypto';
import { formatDuration } from '../../apimachinery/duration.js';

/** time.Duration.String() of a millisecond count (after Truncate(time.Millisecond)): 0s, 523ms, 1.2s, 5m0s, 1h0m0s. */
export function goDuration(ms: number): string {
  return formatDuration(BigInt(Math.max(0, Math.trunc(ms))) * 1_000_000n);
}

/** format.Pod: `name_namespace(uid)`. */
export function formatPod(pod: { metadata: { name?: string; namespace?: string; uid?: string } }): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
}


/** A 64-hex container/sandbox ID (containerd's are random; ours are unique per instance). */
export function runtimeID(...parts: (string | number)[]): string {
  return createHash('sha256').update(parts.join('\0')).update(String(process.hrtime.bigint())).digest('hex');
}

/** A stable image digest for an image reference and platform: the model's repo digest. */
export function imageDigest(ref: string, platform: string): string {
  return 'sha256:' + createHash('sha256').update(`${ref}\0${platform}`).digest('hex');
}
