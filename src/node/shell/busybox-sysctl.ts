/**
 * busybox's `sysctl` applet (procps/sysctl.c): each KEY is read from
 * /proc/sys (dots are directory separators, slashes in the name dots) and
 * printed as `key = value`, one line per line of the file; `-n` prints the
 * value only, `-e` hides unknown-key errors, `-w KEY=VALUE` writes. A
 * directory key lists every setting below it. Exit status 1 when any key failed.
 */
export interface SysctlFS {
  /** A file's text; undefined when there is none. */
  read(path: string): string | undefined;
  /** Names inside a directory; undefined when `path` is no directory. */
  list(path: string): string[] | undefined;
  write(path: string, content: string): 'ok' | 'read-only' | 'no-dir' | 'is-dir';
}

export interface SysctlResult { out: string; err: string; code: number }

const USAGE = `BusyBox v1.29.3 (2019-01-24 07:45:07 UTC) multi-call binary.

Usage: sysctl -p [-enq] [FILE...] / [-enqaw] [KEY[=VALUE]]...

Show/set kernel parameters

\t-p\tSet values from FILE (default /etc/sysctl.conf)
\t-e\tDon't warn about unknown keys
\t-n\tDon't show key names
\t-q      Quiet
\t-a\tShow all values
\t-w\tSet values
`;

/** The name printed (outname): the path's slashes as dots. */
const outName = (path: string) => path.replace(/\//g, '.');
/** sysctl_dots_to_slashes: a name already written as a path is kept. */
const dotsToSlashes = (name: string) => (name.includes('/') ? name : name.replace(/\./g, '/'));

export function busyboxSysctl(args: readonly string[], fs: SysctlFS): SysctlResult {
  let showKeys = true; let keyErrors = true; let writing = false; let quiet = false; let all = false;
  let i = 0;
  // getopt32 with "+": options stop at the first operand.
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') break;
    if (a === '--') { i++; break; }
    for (const f of a.slice(1)) {
      if (f === 'n') showKeys = false;
      else if (f === 'e') keyErrors = false;
      else if (f === 'w') writing = true;
      else if (f === 'q') quiet = true;
      else if (f === 'a' || f === 'A') all = true;
      else return { out: '', err: `sysctl: invalid option -- '${f}'\n${USAGE}`, code: 1 };
    }
  }
  const keys = all ? ['.'] : args.slice(i);
  if (!keys.length) return { out: '', err: USAGE, code: 1 };
  let out = ''; let err = ''; let code = 0;
  const actOnSetting = (setting: string) => {
    const eq = setting.indexOf('=');
    const path = eq === -1 ? setting : setting.slice(0, eq);
    const outname = outName(path);
    const file = `/proc/sys/${path}`;
    if (writing) {
      if (eq === -1) { err += `sysctl: error: '${outname}' must be of the form name=value\n`; code = 1; return; }
      const value = setting.slice(eq + 1);
      const r = fs.write(file, value);
      if (r === 'no-dir' || (r === 'read-only' && fs.read(file) === undefined)) {
        if (keyErrors) err += `sysctl: error: '${outname}' is an unknown key\n`;
        code = 1;
        return;
      }
      if (r !== 'ok') { err += `sysctl: error setting key '${outname}': Read-only file system\n`; code = 1; return; }
      if (!quiet) out += showKeys ? `${outname} = ${value}\n` : `${value}\n`;
      return;
    }
    const content = fs.read(file);
    if (content === undefined) {
      if (keyErrors) err += `sysctl: error: '${outname}' is an unknown key\n`;
      code = 1;
      return;
    }
    // Multi-line settings print one line each; the kernel ends every value with a newline.
    for (const line of content.split('\n').slice(0, -1)) out += showKeys ? `${outname} = ${line}\n` : `${line}\n`;
  };
  const actRecursive = (path: string) => {
    const names = writing || path.includes('=') ? undefined : fs.list(`/proc/sys/${path}`.replace(/\/\.$/, ''));
    if (!names) { actOnSetting(path); return; }
    for (const n of names) actRecursive(path === '.' ? n : `${path}/${n}`);
  };
  for (const k of keys) {
    const eq = k.indexOf('=');
    const name = eq === -1 ? k : k.slice(0, eq);
    actRecursive(k === '.' ? k : dotsToSlashes(name) + (eq === -1 ? '' : k.slice(eq)));
  }
  return { out, err, code };
}
