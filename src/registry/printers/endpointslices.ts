/** EndpointSlices: printEndpointSlice (descriptions from discovery/v1beta1, as upstream takes them). */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

/** listWithMoreString over the first three items. */
function listWithMore(items: string[]): string {
  const max = 3;
  const ret = items.slice(0, max).join(',');
  if (items.length > max) return `${ret} + ${items.length - max} more...`;
  return ret === '' ? '<unset>' : ret;
}

function formatPorts(obj: any): string {
  return listWithMore((obj?.ports ?? []).map((p: any) => (typeof p?.port === 'number' ? String(p.port) : typeof p?.name === 'string' ? p.name : '*')));
}

function formatEndpoints(obj: any): string {
  return listWithMore((obj?.endpoints ?? []).flatMap((e: any) => e?.addresses ?? []));
}

export const endpointSlicePrinter: Printer = {
  columns: [
    nameColumn,
    column('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.'),
    column('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. When ports is empty, it indicates that there are no defined ports. When a port is defined with a nil port value, it indicates "all ports". Each slice may include a maximum of 100 ports.'),
    column('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.'),
    ageColumn,
  ],
  cells(obj: any, now: number): unknown[] {
    return [nameOf(obj), obj?.addressType ?? '', formatPorts(obj), formatEndpoints(obj), ageOf(obj, now)];
  },
};
