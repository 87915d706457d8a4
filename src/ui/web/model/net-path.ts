/**
 * `winkube net check`'s answer drawn as a path: the hops the server traced, each with its role (where the
 * connection leaves, the rule a node applies, the endpoint picked, the one that answers, the rule that stops
 * it and its fix), then the verdict, the last line the command prints (its exit code is 0 only for connected,
 * or for an answered echo with `--protocol icmp`).
 */
export interface NetTrace { from: string; to: string; hops: string[]; result: 'connected' | 'refused' | 'timeout' | 'outside' | 'reply' }

export type HopRole = 'source' | 'rule' | 'endpoint' | 'stop' | 'fix' | 'destination';

export interface PathStep { text: string; role: HopRole }

export interface NetPath { steps: PathStep[]; verdict: NetTrace['result']; ok: boolean }

function roleOf(hop: string, index: number, last: boolean): HopRole {
  if (index === 0) return 'source';
  if (hop.startsWith('stopped: ')) return 'stop';
  if (hop.startsWith('fix: ')) return 'fix';
  if (/^\S+ (iptables|VFP): /.test(hop)) return 'rule';
  if (hop.startsWith('→ ') || / DNAT to /.test(hop)) return 'endpoint';
  return last ? 'destination' : 'rule';
}

export function netPath(trace: NetTrace): NetPath {
  return {
    steps: trace.hops.map((text, i) => ({ text, role: roleOf(text, i, i === trace.hops.length - 1) })),
    verdict: trace.result,
    ok: trace.result === 'connected' || trace.result === 'reply',
  };
}
