/**
 * busybox's `sysctl` applet (procps/sysctl.c): each KEY is read from
 * /proc/sys (as few dots turned into slashes as name an existing file) and
 * printed as `key = value`, `key = ` before each line of the file; `-n`
 * prints the value only, `-e` hides unknown-key errors, `KEY=VALUE` (or
 * `-w`) writes. A directory key lists every setting below it, `-a` all of
 * them. Exit status 1 when any key failed; no key at all does nothing.
 */
export interface SysctlFS {
  /** A file's text; undefined when there is none. */
  read(path: string): string | undefined;
  /** Names inside a directory; undefined when `path` is no directory. */
  list(path: string): string[] | undefined;
  write(path: string, content: string): 'ok' | 'read-only' | 'no-dir' | 'is-dir';
}

export interface SysctlResult { out: string; err: string; code: number }

// The banner of the busybox image the other applets model (its build date as that image's).
const USAGE = `BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.

Usage: sysctl -p [-enq] [FILE...] / [-enqaw] [KEY[=VALUE]]...

Show/set kernel parameters

\t-p\tSet values from FILEs (default /etc/sysctl.conf)
\t-e\tDon't warn about unknown keys
\t-n\tDon't show key names
\t-q      Quiet
\t-a\tShow all values
\t-w\tSet values
`;

const PROC_SYS = '/proc/sys/';

/**
 * sysctl_dots_to_slashes: the fewest dots turned into slashes that name an
 * existing file (net.ipv4.conf.eth0.100.mc_forwarding → net/ipv4/conf/eth0.100/mc_forwarding),
 * tried from the end, never before the last replacement.
 */
function dotsToSlashes(name: string, exists: (rel: string) => boolean): string {
  const chars = [...name, '.'];
  const end = name.length;
  let lastGood = -1;
  for (let again = true; again;) {
    again = false;
    for (let i = end; i > lastGood; i--) {
      if (chars[i] !== '.') continue;
      if (exists(chars.slice(0, i).join(''))) { chars[i] = '/'; lastGood = i; again = true; break; }
    }
  }
  return chars.slice(0, end).join('');
}

export function busyboxSysctl(args: readonly string[], fs: SysctlFS): SysctlResult {
  let showKeys = true; let keyErrors = true; let writeFlag = false; let quiet = false; let all = false;
  let i = 0;
  // getopt32 with "+": options stop at the first operand.
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') break;
    if (a === '--') { i++; break; }
    for (const f of a.slice(1)) {
      if (f === 'n') showKeys = false;
      else if (f === 'e') keyErrors = false;
      else if (f === 'w') writeFlag = true;
      else if (f === 'q') quiet = true;
      else if (f === 'a' || f === 'A') all = true;
      else return { out: '', err: `sysctl: invalid option -- '${f}'\n${USAGE}`, code: 1 };
    }
  }
  let out = ''; let err = ''; let code = 0;
  const isDir = (rel: string) => fs.list(PROC_SYS + rel) !== undefined;
  const exists = (rel: string) => isDir(rel) || fs.read(PROC_SYS + rel) !== undefined;
  const actOnSetting = (setting: string) => {
    const eq = setting.indexOf('=');
    const writing = writeFlag || eq !== -1;
    const path = eq === -1 ? setting : setting.slice(0, eq);
    const outname = path.replace(/\//g, '.');
    if (writing) {
      if (eq === -1) { err += `sysctl: error: '${outname}' must be of the form name=value\n`; code = 1; return; }
      const value = setting.slice(eq + 1);
      if (eq === 0 || !value) { err += `sysctl: error: malformed setting '${setting.replace(/\//g, '.')}'\n`; code = 1; return; }
      const r = fs.write(PROC_SYS + path, value);
      if (r === 'ok') { if (!quiet) out += showKeys ? `${outname} = ${value}\n` : `${value}\n`; return; }
      if (r === 'no-dir') { if (keyErrors) err += `sysctl: error: '${outname}' is an unknown key\n`; }
      else err += `sysctl: error setting key '${outname}': ${r === 'is-dir' ? 'Is a directory' : 'Read-only file system'}\n`;
      code = 1;
      return;
    }
    const content = fs.read(PROC_SYS + path);
    if (content === undefined) {
      if (keyErrors) err += `sysctl: error: '${outname}' is an unknown key\n`;
      code = 1;
      return;
    }
    // Multi-line settings (dev.cdrom.info) print `key = ` before each line.
    for (const line of content.match(/[^\n]*\n|[^\n]+$/g) ?? []) out += showKeys ? `${outname} = ${line}` : line;
  };
  const actRecursive = (path: string) => {
    if (!writeFlag && isDir(path === '.' ? '' : path)) {
      for (const n of fs.list(PROC_SYS + (path === '.' ? '' : path)) ?? []) actRecursive(path === '.' ? n : `${path}/${n}`);
      return;
    }
    actOnSetting(path);
  };
  if (all) { actRecursive('.'); return { out, err, code }; }
  for (const k of args.slice(i)) actRecursive(dotsToSlashes(k, exists));
  return { out, err, code };
}
