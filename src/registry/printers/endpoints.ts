/** Endpoints: printEndpoints. */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, int, nameOf } from './cells.js';

/** net.JoinHostPort: IPv6 hosts in brackets. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** formatEndpoints(endpoints, nil): the first three addresses, "+ N more..." beyond. */
function formatEndpoints(obj: any): string {
  const subsets: any[] = obj?.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses: any[] = ss?.addresses ?? [];
    const ports: any[] = ss?.ports ?? [];
    // Headless services may have addresses without ports.
    const hosts = ports.length === 0 ? [undefined] : ports;
    for (const port of hosts) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) { more = true; break; }
        list.push(port === undefined ? a?.ip ?? '' : joinHostPort(a?.ip ?? '', int(port?.port)));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

export const endpointsPrinter: Printer = {
  columns: [
    nameColumn,
    column('Endpoints', 'string', 'The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), formatEndpoints(obj), ageOf(obj, now)];
  },
};
