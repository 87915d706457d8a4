/**
 * The few .NET types Windows container scripts reach for from PowerShell:
 * `New-Object System.Net.HttpListener` (the Windows guide's sample web
 * server), hashtables, `[System.Text.Encoding]::UTF8.GetBytes`,
 * `[Environment]::MachineName`, `[System.Net.Dns]::GetHostName()`.
 *
 * An HttpListener started on a prefix waits in GetContext for a request. No
 * request reaches a container here yet (there is no network model), so
 * GetContext waits for good, as a real listener nobody calls does.
 */
import { display, hashtable, psObject, PsBlocks, PsRuntimeError, type PsObject, type Value } from './ps-values.js';

/** `Exception calling "M" with "N" argument(s): "why"`: how a .NET exception reaches the PowerShell error stream. */
export const exceptionCalling = (method: string, args: number, why: string) =>
  `Exception calling "${method}" with "${args}" argument(s): "${why}"`;

function httpListener(): PsObject {
  const prefixes: string[] = [];
  const listener: PsObject = psObject('System.Net.HttpListener', {
    IsListening: false, IgnoreWriteExceptions: false, AuthenticationSchemes: 'Anonymous', Realm: null, UnsafeConnectionNtlmAuthentication: false,
    Prefixes: psObject('System.Net.HttpListenerPrefixCollection', { Count: 0 }, {
      Add(args) {
        const p = display(args[0] ?? null);
        // HttpListenerPrefixCollection.Add: the prefix must be http(s)://host[:port]/ ending in a slash.
        if (!/^https?:\/\/[^/]+\/.*$/i.test(p)) {
          throw new PsRuntimeError(exceptionCalling('Add', 1, 'Only Uri prefixes starting with \'http://\' or \'https://\' are supported.\r\nParameter name: uriPrefix'), 'ArgumentException');
        }
        if (!p.endsWith('/')) {
          throw new PsRuntimeError(exceptionCalling('Add', 1, 'Only Uri prefixes ending in \'/\' are allowed.\r\nParameter name: uriPrefix'), 'ArgumentException');
        }
        if (!prefixes.includes(p)) prefixes.push(p);
        (listener.props.Prefixes as PsObject).props.Count = prefixes.length;
        return null;
      },
    }),
  }, {
    Start() { listener.props.IsListening = true; return null; },
    Stop() { listener.props.IsListening = false; return null; },
    Close() { listener.props.IsListening = false; return null; },
    GetContext() {
      if (!listener.props.IsListening) {
        throw new PsRuntimeError(exceptionCalling('GetContext', 0, 'Please call the Start() method before calling this method.'), 'InvalidOperationException');
      }
      if (!prefixes.length) {
        throw new PsRuntimeError(exceptionCalling('GetContext', 0, 'Please call the AddPrefix() method before calling this method.'), 'InvalidOperationException');
      }
      throw new PsBlocks();
    },
  });
  return listener;
}

/** The types `New-Object` can make, by full and short name (case-insensitive). */
const CONSTRUCTORS: Record<string, () => Value> = {
  'system.net.httplistener': httpListener,
  'net.httplistener': httpListener,
  'system.collections.hashtable': hashtable,
  'collections.hashtable': hashtable,
  hashtable,
};

/** New-Object TypeName; undefined when the type is not one we model. */
export function newObject(typeName: string): Value | undefined {
  const make = CONSTRUCTORS[typeName.toLowerCase()];
  return make ? make() : undefined;
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
