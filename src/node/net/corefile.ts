/**
 * The Corefile of the kube-system/coredns ConfigMap, read as CoreDNS reads
 * it (the Caddyfile grammar: server blocks of zone keys and a `{ }` body of
 * directives, a directive's arguments up to the end of its line, an
 * optional `{ }` block of its own, `#` comments, double quotes), keeping
 * what decides where a query goes:
 *
 * - each server block's zones and port (`.:53`, `example.org:53`,
 *   `dns://example.org`; kubeadm's stubDomains became such blocks);
 * - `kubernetes [ZONES...] { fallthrough [ZONES...] }`;
 * - `forward FROM TO... { except ZONES... policy ... }`, TO being an
 *   address (`1.2.3.4`, `1.2.3.4:53`, `dns://1.2.3.4`, `tls://...`) or a
 *   resolv.conf file.
 *
 * Errors carry CoreDNS's texts (Caddyfile's `<file>:<line> - Error during
 * parsing: ...`, a plugin's `plugin/<name>: ...` in front of its own), as
 * the reload plugin logs them.
 */

/** Where CoreDNS's Deployment mounts the ConfigMap and passes it with `-conf`. */
export const COREFILE_PATH = '/etc/coredns/Corefile';

/** CoreDNS v1.11's plugins (plugin.cfg): a directive outside this list is `Unknown directive`. */
const PLUGINS = new Set([
  'root', 'metadata', 'geoip', 'cancel', 'tls', 'timeouts', 'multisocket', 'reload', 'nsid', 'bufsize', 'bind', 'debug',
  'trace', 'ready', 'health', 'pprof', 'prometheus', 'errors', 'log', 'dnstap', 'local', 'dns64', 'acl', 'any', 'chaos',
  'loadbalance', 'tsig', 'cache', 'rewrite', 'header', 'dnssec', 'autopath', 'minimal', 'template', 'transfer', 'hosts',
  'route53', 'azure', 'clouddns', 'k8s_external', 'kubernetes', 'file', 'auto', 'secondary', 'etcd', 'loop', 'forward',
  'grpc', 'erratic', 'whoami', 'on', 'sign', 'view', 'import',
]);

export class CorefileError extends Error {}

/** An upstream of `forward`: a DNS server's address and port, or one the model cannot speak to (TLS, gRPC). */
export type Upstream = { kind: 'dns'; ip: string; port: number } | { kind: 'other'; address: string };

export interface ForwardDirective { from: string; to: Upstream[]; except: string[] }

export interface KubernetesDirective { zones: string[]; fallthrough?: string[] }

export interface ServerBlock {
  /** Normalized zones, lower case without the trailing dot, `.` for the root. */
  zones: string[];
  port: number;
  /** Whether the block serves plain DNS (`dns://` or no scheme); `tls://`, `grpc://`, `https://` blocks do not get the pods' queries. */
  plainDNS: boolean;
  kubernetes?: KubernetesDirective;
  forward?: ForwardDirective;
  /** Whether `reload` is on (CoreDNS then follows the ConfigMap's changes). */
  reload: boolean;
}

export interface CorefileConfig { servers: ServerBlock[] }

interface Token { text: string; line: number; quoted: boolean }

function tokenize(text: string, file: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') { line++; i++; continue; }
    if (/\s/.test(c)) { i++; continue; }
    if (c === '#') { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (c === '"') {
      const start = line;
      let v = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && text[i + 1] === '"') { v += '"'; i += 2; continue; }
        if (text[i] === '\n') line++;
        v += text[i]; i++;
      }
      if (i >= text.length) throw new CorefileError(`${file}:${start} - Error during parsing: Unexpected EOF`);
      i++;
      out.push({ text: v, line: start, quoted: true });
      continue;
    }
    let v = '';
    while (i < text.length && !/\s/.test(text[i]!)) { v += text[i]; i++; }
    out.push({ text: v, line, quoted: false });
  }
  return out;
}

interface RawDirective { name: string; args: Token[]; block: Token[][]; line: number }

/** Zone keys of a server block: `[scheme://]zone[:port]`, comma or space separated. */
function parseKey(key: string): { zone: string; port: number; plainDNS: boolean } {
  let rest = key;
  let scheme = 'dns';
  const m = /^([a-z]+):\/\//i.exec(rest);
  if (m) { scheme = m[1]!.toLowerCase(); rest = rest.slice(m[0].length); }
  let port = scheme === 'tls' ? 853 : scheme === 'https' ? 443 : 53;
  const pm = /^(.*):(\d+)$/.exec(rest);
  if (pm) { rest = pm[1]!; port = Number(pm[2]); }
  return { zone: normalizeZone(rest), port, plainDNS: scheme === 'dns' };
}

export function normalizeZone(z: string): string {
  const v = z.toLowerCase().replace(/\.$/, '');
  return v === '' ? '.' : v;
}

function parseUpstream(to: string, resolvConf: (path: string) => string[] | undefined): Upstream[] {
  const m = /^([a-z]+):\/\//i.exec(to);
  const scheme = m ? m[1]!.toLowerCase() : 'dns';
  const rest = m ? to.slice(m[0].length) : to;
  if (scheme !== 'dns') return [{ kind: 'other', address: to }];
  if (!m && rest.startsWith('/')) {
    const servers = resolvConf(rest);
    if (!servers) throw new CorefileError(`plugin/forward: open ${rest}: no such file or directory`);
    return servers.map((ip) => ({ kind: 'dns', ip, port: 53 }));
  }
  const hp = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d+))?$/.exec(rest);
  if (!hp) throw new CorefileError(`plugin/forward: not an IP address or file: "${to}"`);
  return [{ kind: 'dns', ip: hp[1]!, port: hp[2] ? Number(hp[2]) : 53 }];
}

/**
 * Parses a Corefile. `resolvConf` gives the nameservers of a resolv.conf
 * path as the CoreDNS container sees it (undefined: no such file).
 */
export function parseCorefile(text: string, resolvConf: (path: string) => string[] | undefined, file = COREFILE_PATH): CorefileConfig {
  const tokens = tokenize(text, file);
  const err = (line: number, msg: string) => new CorefileError(`${file}:${line} - Error during parsing: ${msg}`);
  const servers: ServerBlock[] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < tokens.length) {
    const keys: Token[] = [];
    while (i < tokens.length && !(tokens[i]!.text === '{' && !tokens[i]!.quoted)) {
      const t = tokens[i]!;
      if (t.text === '}' && !t.quoted) throw err(t.line, "Unexpected '}' because no matching opening brace");
      keys.push(...t.text.split(',').filter((k) => k !== '').map((k) => ({ ...t, text: k })));
      i++;
    }
    const open = tokens[i];
    if (!open) throw err(keys[keys.length - 1]?.line ?? 1, 'Unexpected EOF');
    if (!keys.length) throw err(open.line, "Unexpected '{', expecting a server block key");
    i++;
    const directives: RawDirective[] = [];
    for (;;) {
      const t = tokens[i];
      if (!t) throw err(tokens[tokens.length - 1]!.line, 'Unexpected EOF');
      if (t.text === '}' && !t.quoted) { i++; break; }
      if (!PLUGINS.has(t.text)) throw err(t.line, `Unknown directive '${t.text}'`);
      const d: RawDirective = { name: t.text, args: [], block: [], line: t.line };
      i++;
      while (tokens[i] && tokens[i]!.line === t.line && !(tokens[i]!.text === '{' && !tokens[i]!.quoted) && !(tokens[i]!.text === '}' && !tokens[i]!.quoted)) d.args.push(tokens[i++]!);
      if (tokens[i] && tokens[i]!.text === '{' && !tokens[i]!.quoted && tokens[i]!.line === (d.args[d.args.length - 1]?.line ?? t.line)) {
        i++;
        let depth = 1;
        let current: Token[] = [];
        let lastLine = -1;
        while (depth > 0) {
          const b = tokens[i];
          if (!b) throw err(tokens[tokens.length - 1]!.line, 'Unexpected EOF');
          i++;
          if (b.text === '{' && !b.quoted) { depth++; continue; }
          if (b.text === '}' && !b.quoted) { depth--; continue; }
          if (depth > 1) continue;
          if (b.line !== lastLine && current.length) { d.block.push(current); current = []; }
          current.push(b);
          lastLine = b.line;
        }
        if (current.length) d.block.push(current);
      }
      directives.push(d);
    }
    const parsedKeys = keys.map((k) => parseKey(k.text));
    for (const k of parsedKeys) {
      const id = `dns://${k.zone === '.' ? '' : k.zone}.:${k.port}`;
      if (k.plainDNS && seen.has(id)) throw new CorefileError(`cannot serve ${id} - it is already defined`);
      if (k.plainDNS) seen.add(id);
    }
    const first = parsedKeys[0]!;
    const block: ServerBlock = { zones: parsedKeys.map((k) => k.zone), port: first.port, plainDNS: first.plainDNS, reload: false };
    for (const d of directives) {
      if (d.name === 'reload') block.reload = true;
      if (d.name === 'kubernetes') {
        const zones = d.args.length ? d.args.map((a) => normalizeZone(a.text)) : block.zones;
        const ft = d.block.find((l) => l[0]?.text === 'fallthrough');
        block.kubernetes = { zones, ...(ft ? { fallthrough: ft.slice(1).map((x) => normalizeZone(x.text)) } : {}) };
      }
      if (d.name === 'forward') {
        if (block.forward) throw new CorefileError('plugin/forward: this plugin can only be used once per Server Block');
        const [from, ...to] = d.args;
        if (!from) throw new CorefileError(`plugin/forward: ${file}:${d.line} - Error during parsing: Wrong argument count or unexpected line ending after 'forward'`);
        if (!to.length) throw new CorefileError(`plugin/forward: ${file}:${from.line} - Error during parsing: Wrong argument count or unexpected line ending after '${from.text}'`);
        const except = d.block.filter((l) => l[0]?.text === 'except').flatMap((l) => l.slice(1).map((x) => normalizeZone(x.text)));
        block.forward = { from: normalizeZone(from.text), to: to.flatMap((x) => parseUpstream(x.text, resolvConf)), except };
      }
    }
    servers.push(block);
  }
  return { servers };
}
