/**
 * glibc's getent (nss/getent.c) for the hosts database: `getent hosts
 * NAME...` prints, per address of the name, `%-15s %s` of the address and
 * the canonical name (the search candidate that answered), and exits 2 for
 * a key that is not found. The cluster has no AAAA records, so the AF_INET6
 * query getent tries first falls through to AF_INET. An address is looked up
 * by its PTR record; the pod's own name and address come from the
 * kubelet-managed /etc/hosts. Other databases are not modelled: exit 1 with
 * getent's `Unknown database` message.
 */
import type { ToolIO } from './http-tools.js';
import type { Step } from './types.js';

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

export function* getent(args: readonly string[], io: ToolIO): Generator<Step, number, void> {
  const [db, ...keys] = args;
  if (db === undefined) {
    yield* io.err('Usage: getent [OPTION...] database [key ...]\nTry `getent --help\' or `getent --usage\' for more information.\n');
    return 1;
  }
  if (db !== 'hosts') { yield* io.err(`Unknown database: ${db}\nTry \`getent --help' or \`getent --usage' for more information.\n`); return 1; }
  const net = io.ctx.net;
  for (const key of keys) {
    let rows: [string, string][] | undefined;
    const podIP = net?.podIP ?? io.ctx.network?.podIP;
    // The kubelet's /etc/hosts names the pod's own address.
    if (key === io.ctx.hostname && podIP) rows = [[podIP, key]];
    else if (IPV4.test(key)) {
      const name = key === podIP ? io.ctx.hostname : net?.reverse?.(key);
      rows = name ? [[key, name]] : undefined;
    } else {
      const a = net?.lookup(key);
      rows = a?.addresses.map((ip) => [ip, a.name.replace(/\.$/, '')]);
    }
    if (!rows) return 2;
    yield* io.out(rows.map(([ip, name]) => `${ip.padEnd(15)} ${name}\n`).join(''));
  }
  return 0;
}
