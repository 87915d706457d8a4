/**
 * The few .NET types Windows container scripts reach for from PowerShell:
 * `New-Object System.Net.HttpListener` (the Windows guide's sample web
 * server), hashtables, `[System.Text.Encoding]::UTF8.GetBytes`,
 * `[Environment]::MachineName`, `[System.Net.Dns]::GetHostName()`.
 *
 * The HttpListener is ps-http-listener.ts: it listens on the cluster
 * network and GetContext waits for the next request.
 */
import { httpListener, type ListenerHost } from './ps-http-listener.js';
import { display, hashtable, psObject, type Value } from './ps-values.js';

export { exceptionCalling } from './ps-http-listener.js';

/** The types `New-Object` can make, by full and short name (case-insensitive). */
const CONSTRUCTORS: Record<string, (host: ListenerHost) => Value> = {
  'system.net.httplistener': httpListener,
  'net.httplistener': httpListener,
  'system.collections.hashtable': hashtable,
  'collections.hashtable': hashtable,
  hashtable,
};

/** New-Object TypeName; undefined when the type is not one we model. */
export function newObject(typeName: string, host: ListenerHost): Value | undefined {
  const make = CONSTRUCTORS[typeName.toLowerCase()];
  return make ? make(host) : undefined;
}

/** `[Type]::Member` and `[Type]::Method(args)`; undefined when unknown. */
export function staticMember(typeName: string, member: string, args: Value[] | undefined, host: { hostname: string; now: () => Date }): Value | undefined {
  const t = typeName.toLowerCase().replace(/^system\./, '');
  const m = member.toLowerCase();
  if (t === 'text.encoding' && (m === 'utf8' || m === 'ascii' || m === 'unicode')) {
    return psObject(m === 'utf8' ? 'System.Text.UTF8Encoding' : m === 'ascii' ? 'System.Text.ASCIIEncoding' : 'System.Text.UnicodeEncoding', {}, {
      GetBytes: (a) => [...Buffer.from(display(a[0] ?? null), m === 'unicode' ? 'utf16le' : m === 'ascii' ? 'latin1' : 'utf8')],
      GetString: (a) => Buffer.from((Array.isArray(a[0]) ? a[0] : []).map(Number)).toString(m === 'unicode' ? 'utf16le' : 'utf8'),
    });
  }
  if (t === 'environment') {
    if (m === 'machinename') return host.hostname.toUpperCase();
    if (m === 'newline') return '\r\n';
  }
  if (t === 'net.dns' && m === 'gethostname' && args) return host.hostname;
  if (t === 'datetime' && m === 'now') return host.now().toISOString();
  if (t === 'math' && args) {
    // A missing argument is NaN, as Number(undefined) would be.
    const [a = NaN, b = NaN] = args.map(Number);
    switch (m) {
      case 'round': return Math.round(a);
      case 'floor': return Math.floor(a);
      case 'ceiling': return Math.ceil(a);
      case 'max': return Math.max(a, b);
      case 'min': return Math.min(a, b);
      case 'abs': return Math.abs(a);
    }
  }
  return undefined;
}
