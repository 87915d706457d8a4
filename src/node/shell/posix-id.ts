/**
 * `id` and `whoami` (busybox and coreutils print the same for these forms):
 * the process's credentials, with names only where the image's /etc/passwd
 * and /etc/group have them (root, uid and gid 0, in every image the model
 * runs); other ids print as bare numbers, as they do for a runAsUser the
 * image does not know.
 */
import type { ProcessIdentity } from './types.js';

export const ROOT_IDENTITY: ProcessIdentity = { uid: 0, gid: 0, groups: [0] };

export interface ToolResult { out: string; err: string; code: number }

const userName = (uid: number): string | undefined => (uid === 0 ? 'root' : undefined);
const groupName = (gid: number): string | undefined => (gid === 0 ? 'root' : undefined);
const withName = (n: number, name: string | undefined) => (name === undefined ? String(n) : `${n}(${name})`);

export function idCommand(who: ProcessIdentity, args: readonly string[]): ToolResult {
  const flags = new Set(args.filter((a) => a.startsWith('-')).flatMap((a) => [...a.slice(1)]));
  const unknown = [...flags].find((f) => !'ugGnr'.includes(f));
  if (unknown !== undefined) return { out: '', err: `id: invalid option -- '${unknown}'\n`, code: 1 };
  const names = flags.has('n');
  const one = (n: number, name: string | undefined): string | undefined => (names ? name : String(n));
  const single = flags.has('u') ? [one(who.uid, userName(who.uid))]
    : flags.has('g') ? [one(who.gid, groupName(who.gid))]
      : flags.has('G') ? who.groups.map((g) => one(g, groupName(g))) : undefined;
  if (single) {
    // `id -un` for a uid without a passwd entry prints the number and fails, as busybox does.
    const failed = single.some((s) => s === undefined);
    const printed = single.map((s, i) => s ?? String(flags.has('u') ? who.uid : flags.has('g') ? who.gid : who.groups[i]));
    return { out: printed.join(' ') + '\n', err: '', code: failed ? 1 : 0 };
  }
  const groups = who.groups.length ? ` groups=${who.groups.map((g) => withName(g, groupName(g))).join(',')}` : '';
  return { out: `uid=${withName(who.uid, userName(who.uid))} gid=${withName(who.gid, groupName(who.gid))}${groups}\n`, err: '', code: 0 };
}

export function whoamiCommand(who: ProcessIdentity): ToolResult {
  const name = userName(who.uid);
  return name === undefined ? { out: '', err: `whoami: unknown uid ${who.uid}\n`, code: 1 } : { out: `${name}\n`, err: '', code: 0 };
}
