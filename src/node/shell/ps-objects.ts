/**
 * The objects PowerShell's common cmdlets emit in a Windows container, with
 * the default views the host prints them in: file system items
 * (Get-ChildItem), processes (Get-Process), services (Get-Service),
 * Measure-Object's result, IP addresses (Get-NetIPAddress).
 *
 * Processes and services are those of a Windows Server container: the
 * container's own system processes (smss, csrss, wininit, services, lsass,
 * svchost, CExecSvc) plus its shell; the numbers are the model's, steady
 * from call to call.
 */
import { display, list, psObject, table, type PsObject, type Value } from './ps-values.js';

/** LastWriteTime as FileSystem.format.ps1xml writes it: `"{0,10}  {1,8}" -f date, short time` (en-US). */
export function lastWriteTime(d: Date): string {
  const h = d.getUTCHours() % 12 || 12;
  const date = `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
  const time = `${h}:${String(d.getUTCMinutes()).padStart(2, '0')} ${d.getUTCHours() < 12 ? 'AM' : 'PM'}`;
  return `${date.padStart(10)}  ${time.padStart(8)}`;
}
const shortDate = lastWriteTime;

/** Get-ChildItem's table, one per directory: Mode, LastWriteTime, Length, Name. */
function fileView(group: PsObject[]): string {
  let out = '';
  const dirOf = (o: PsObject) => display(o.props.DirectoryName ?? o.props.__parent);
  for (let i = 0, first = group[0]; first; first = group[i]) {
    const dir = dirOf(first);
    const rows: string[] = [];
    for (let o: PsObject | undefined = first; o && dirOf(o) === dir; o = group[++i]) {
      rows.push(`${display(o.props.Mode)}${display(o.props.__written).padStart(28)}${display(o.props.Length).padStart(15)} ${display(o.props.Name)}`);
    }
    out += `\r\n\r\n    Directory: ${dir}\r\n\r\n\r\nMode                 LastWriteTime         Length Name\r\n----                 -------------         ------ ----\r\n${rows.join('\r\n')}\r\n\r\n\r\n`;
  }
  return out;
}

/** A FileInfo/DirectoryInfo as Get-ChildItem emits it. */
export function fileItem(dir: string, name: string, type: 'file' | 'dir', size: number, written: Date): PsObject {
  const full = `${dir.replace(/\\$/, '')}\\${name}`;
  return psObject(type === 'dir' ? 'System.IO.DirectoryInfo' : 'System.IO.FileInfo', {
    Name: name, FullName: full, Mode: type === 'dir' ? 'd-----' : '-a----', PSIsContainer: type === 'dir',
    Length: type === 'file' ? size : null, LastWriteTime: shortDate(written),
    Extension: type === 'file' && name.includes('.') ? name.slice(name.lastIndexOf('.')) : '',
    __parent: dir, __written: shortDate(written), __string: name,
  }, undefined, fileView);
}

interface ProcessRow { name: string; id: number; handles: number; npm: number; pm: number; ws: number; cpu: number; si: number }

/** The processes of a Windows Server container (session 1 is the container's; System and Idle are the silo's view of the kernel). */
export function containerProcesses(shell: 'powershell' | 'pwsh' | 'cmd', shellPid: number): ProcessRow[] {
  const rows: ProcessRow[] = [
    { name: 'CExecSvc', id: 1292, handles: 121, npm: 7, pm: 1376, ws: 6148, cpu: 0.02, si: 1 },
    { name: 'csrss', id: 1056, handles: 150, npm: 10, pm: 1160, ws: 5180, cpu: 0.05, si: 1 },
    { name: 'Idle', id: 0, handles: 0, npm: 0, pm: 60, ws: 8, cpu: 0, si: 0 },
    { name: 'lsass', id: 1180, handles: 628, npm: 17, pm: 4788, ws: 14560, cpu: 0.11, si: 1 },
    { name: 'services', id: 1164, handles: 261, npm: 10, pm: 2924, ws: 8020, cpu: 0.09, si: 1 },
    { name: 'smss', id: 1000, handles: 50, npm: 3, pm: 392, ws: 1228, cpu: 0.02, si: 0 },
    { name: 'svchost', id: 1372, handles: 383, npm: 14, pm: 3168, ws: 11244, cpu: 0.05, si: 1 },
    { name: 'svchost', id: 1444, handles: 271, npm: 11, pm: 2572, ws: 9140, cpu: 0.03, si: 1 },
    { name: 'svchost', id: 1620, handles: 588, npm: 24, pm: 8380, ws: 18944, cpu: 0.14, si: 1 },
    { name: 'System', id: 4, handles: 0, npm: 0, pm: 20, ws: 144, cpu: 0, si: 0 },
    { name: 'wininit', id: 1124, handles: 145, npm: 9, pm: 1488, ws: 6476, cpu: 0.02, si: 1 },
    shell === 'cmd' ? { name: 'cmd', id: shellPid, handles: 69, npm: 5, pm: 2084, ws: 3864, cpu: 0.02, si: 1 }
      : { name: shell, id: shellPid, handles: 512, npm: 29, pm: 60904, ws: 70112, cpu: 0.83, si: 1 },
  ];
  return rows.sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
}

const processColumns = [
  { header: 'Handles', width: 7, right: true, cell: (o: PsObject) => display(o.props.Handles) },
  { header: 'NPM(K)', width: 7, right: true, cell: (o: PsObject) => display(o.props.__npm) },
  { header: 'PM(K)', width: 8, right: true, cell: (o: PsObject) => display(o.props.__pm) },
  { header: 'WS(K)', width: 10, right: true, cell: (o: PsObject) => display(o.props.__ws) },
  { header: 'CPU(s)', width: 10, right: true, cell: (o: PsObject) => (Number(o.props.CPU) ? Number(o.props.CPU).toFixed(2) : '') },
  { header: 'Id', width: 6, right: true, cell: (o: PsObject) => display(o.props.Id) },
  { header: 'SI', width: 3, right: true, cell: (o: PsObject) => display(o.props.SI) },
  { header: 'ProcessName', width: 11, cell: (o: PsObject) => display(o.props.ProcessName) },
];
const processView = (group: PsObject[]) => table(processColumns, group);

export function processObject(p: ProcessRow): PsObject {
  return psObject('System.Diagnostics.Process', {
    Name: p.name, ProcessName: p.name, Id: p.id, Handles: p.handles, CPU: p.cpu, SI: p.si, SessionId: p.si,
    WorkingSet: p.ws * 1024, WorkingSet64: p.ws * 1024, PM: p.pm * 1024, NPM: p.npm * 1024,
    __npm: p.npm, __pm: p.pm, __ws: p.ws, __string: `System.Diagnostics.Process (${p.name})`,
  }, undefined, processView);
}

/** The services of a Windows Server Core container, as Get-Service lists them (by name). */
const SERVICES: [status: 'Running' | 'Stopped', name: string, displayName: string][] = [
  ['Running', 'CExecSvc', 'Container Execution Agent'],
  ['Running', 'CryptSvc', 'Cryptographic Services'],
  ['Running', 'DcomLaunch', 'DCOM Server Process Launcher'],
  ['Running', 'Dhcp', 'DHCP Client'],
  ['Running', 'Dnscache', 'DNS Client'],
  ['Running', 'EventLog', 'Windows Event Log'],
  ['Running', 'LanmanWorkstation', 'Workstation'],
  ['Running', 'mpssvc', 'Windows Defender Firewall'],
  ['Running', 'nsi', 'Network Store Interface Service'],
  ['Running', 'RpcEptMapper', 'RPC Endpoint Mapper'],
  ['Running', 'RpcSs', 'Remote Procedure Call (RPC)'],
  ['Running', 'SamSs', 'Security Accounts Manager'],
  ['Stopped', 'W32Time', 'Windows Time'],
  ['Running', 'Winmgmt', 'Windows Management Instrumentation'],
  ['Stopped', 'WinRM', 'Windows Remote Management (WS-Management)'],
  ['Stopped', 'wuauserv', 'Windows Update'],
];

const serviceView = (group: PsObject[]) => table([
  { header: 'Status', width: 8, cell: (o) => display(o.props.Status) },
  { header: 'Name', width: 18, cell: (o) => display(o.props.Name) },
  { header: 'DisplayName', width: 11, cell: (o) => display(o.props.DisplayName) },
], group);

export function containerServices(): PsObject[] {
  return [...SERVICES].sort((a, b) => a[1].toLowerCase().localeCompare(b[1].toLowerCase())).map(([status, name, displayName]) =>
    psObject('System.ServiceProcess.ServiceController', { Status: status, Name: name, DisplayName: displayName, ServiceName: name, __string: name },
      undefined, serviceView));
}

/** Measure-Object's GenericMeasureInfo; PowerShell 7 adds StandardDeviation. */
export function measureInfo(version: 5 | 7, count: number, stats: { sum?: number; average?: number; maximum?: number; minimum?: number; property?: string }): PsObject {
  const names = version === 7 ? ['Count', 'Average', 'Sum', 'Maximum', 'Minimum', 'StandardDeviation', 'Property'] : ['Count', 'Average', 'Sum', 'Maximum', 'Minimum', 'Property'];
  const props: Record<string, Value> = {
    Count: count, Average: stats.average ?? null, Sum: stats.sum ?? null, Maximum: stats.maximum ?? null, Minimum: stats.minimum ?? null,
    Property: stats.property ?? null,
  };
  if (version === 7) props.StandardDeviation = null;
  return psObject('Microsoft.PowerShell.Commands.GenericMeasureInfo', props, undefined, (group) => group.map((o) => list(o, names)).join(''));
}

/** Get-NetIPAddress's objects for the container's adapter and loopback. */
export function ipAddresses(adapter: string, podIP: string | undefined, linkLocal: string | undefined, ifIndex = 17, prefixLength = 24): PsObject[] {
  const names = ['IPAddress', 'InterfaceIndex', 'InterfaceAlias', 'AddressFamily', 'Type', 'PrefixLength', 'PrefixOrigin', 'SuffixOrigin', 'AddressState',
    'ValidLifetime', 'PreferredLifetime', 'SkipAsSource', 'PolicyStore'];
  const view = (group: PsObject[]) => group.map((o) => list(o, names)).join('');
  const addr = (ip: string, index: number, alias: string, family: string, prefix: number, origin: string, suffix: string) =>
    psObject('Microsoft.Management.Infrastructure.CimInstance#ROOT/StandardCimv2/MSFT_NetIPAddress', {
      IPAddress: ip, InterfaceIndex: index, InterfaceAlias: alias, AddressFamily: family, Type: 'Unicast', PrefixLength: prefix,
      PrefixOrigin: origin, SuffixOrigin: suffix, AddressState: 'Preferred', ValidLifetime: 'Infinite ([TimeSpan]::MaxValue)',
      PreferredLifetime: 'Infinite ([TimeSpan]::MaxValue)', SkipAsSource: 'False', PolicyStore: 'ActiveStore', __string: ip,
    }, undefined, view);
  const out: PsObject[] = [];
  if (podIP && linkLocal) out.push(addr(linkLocal, ifIndex, adapter, 'IPv6', 64, 'WellKnown', 'Link'), addr(podIP, ifIndex, adapter, 'IPv4', prefixLength, 'Manual', 'Manual'));
  out.push(addr('::1', 1, 'Loopback Pseudo-Interface 1', 'IPv6', 128, 'WellKnown', 'WellKnown'),
    addr('127.0.0.1', 1, 'Loopback Pseudo-Interface 1', 'IPv4', 8, 'WellKnown', 'WellKnown'));
  return out;
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const dayName = (d: Date) => DAY_NAMES[d.getUTCDay()] ?? '';
const monthName = (d: Date) => MONTH_NAMES[d.getUTCMonth()] ?? '';

/**
 * .NET DateTime.ToString(format) in en-US for the container's clock (UTC):
 * the standard formats `d D t T s u o g G` and the custom tokens.
 */
export function formatDate(d: Date, format: string): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const h12 = d.getUTCHours() % 12 || 12;
  const ms = d.getUTCMilliseconds();
  const standard: Record<string, string> = {
    d: 'M/d/yyyy', D: 'dddd, MMMM d, yyyy', t: 'h:mm tt', T: 'h:mm:ss tt', s: "yyyy-MM-dd'T'HH:mm:ss", u: "yyyy-MM-dd HH:mm:ss'Z'",
    o: "yyyy-MM-dd'T'HH:mm:ss.fffffff'+00:00'", g: 'M/d/yyyy h:mm tt', G: 'M/d/yyyy h:mm:ss tt', f: 'dddd, MMMM d, yyyy h:mm tt', F: 'dddd, MMMM d, yyyy h:mm:ss tt',
  };
  const fmt = format.length === 1 ? standard[format] ?? format : format;
  const tokens: Record<string, () => string> = {
    yyyy: () => p(d.getUTCFullYear(), 4), yy: () => p(d.getUTCFullYear() % 100), MMMM: () => monthName(d), MMM: () => monthName(d).slice(0, 3),
    MM: () => p(d.getUTCMonth() + 1), M: () => String(d.getUTCMonth() + 1), dddd: () => dayName(d), ddd: () => dayName(d).slice(0, 3),
    dd: () => p(d.getUTCDate()), d: () => String(d.getUTCDate()), HH: () => p(d.getUTCHours()), H: () => String(d.getUTCHours()),
    hh: () => p(h12), h: () => String(h12), mm: () => p(d.getUTCMinutes()), m: () => String(d.getUTCMinutes()), ss: () => p(d.getUTCSeconds()),
    s: () => String(d.getUTCSeconds()), fffffff: () => p(ms, 3) + '0000', fff: () => p(ms, 3), ff: () => p(Math.floor(ms / 10)), f: () => String(Math.floor(ms / 100)),
    tt: () => (d.getUTCHours() < 12 ? 'AM' : 'PM'), K: () => '+00:00', zzz: () => '+00:00',
  };
  return fmt.replace(/'([^']*)'|yyyy|yy|MMMM|MMM|MM|M|dddd|ddd|dd|d|HH|H|hh|h|mm|m|ss|s|fffffff|fff|ff|f|tt|K|zzz/g,
    (m, lit?: string) => lit ?? tokens[m]?.() ?? m);
}

/** Get-Date's DateTime: its default view is the long date and time; in a string it is `MM/dd/yyyy HH:mm:ss`. */
export function dateTime(d: Date): PsObject {
  const add = (ms: number) => (args: Value[]) => dateTime(new Date(d.getTime() + Number(args[0] ?? 0) * ms));
  return psObject('System.DateTime', {
    Year: d.getUTCFullYear(), Month: d.getUTCMonth() + 1, Day: d.getUTCDate(), Hour: d.getUTCHours(), Minute: d.getUTCMinutes(), Second: d.getUTCSeconds(),
    Millisecond: d.getUTCMilliseconds(), DayOfWeek: dayName(d), Kind: 'Local',
    DayOfYear: Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1,
    __string: formatDate(d, 'MM/dd/yyyy HH:mm:ss'),
  }, {
    ToString: (args) => formatDate(d, args.length ? display(args[0]) : 'G'),
    AddDays: add(86_400_000), AddHours: add(3_600_000), AddMinutes: add(60_000), AddSeconds: add(1000), AddMilliseconds: add(1),
    ToUniversalTime: () => dateTime(d), ToLocalTime: () => dateTime(d),
  }, (group) => group.map((o) => `\r\n${formatDate(new Date(Date.UTC(Number(o.props.Year), Number(o.props.Month) - 1, Number(o.props.Day), Number(o.props.Hour), Number(o.props.Minute), Number(o.props.Second))), 'dddd, MMMM d, yyyy h:mm:ss tt')}\r\n`).join('') + '\r\n\r\n');
}
