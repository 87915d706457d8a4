/**
 * A DNS reply as the query tools print it: records in master-file
 * presentation form (RFC 1035 section 5: `10 100 80 target.` for SRV,
 * quoted TXT), and the size of the message the server sent, counted from
 * its wire form (names compressed, the OPT record the tool asked for).
 */
import type { DNSReply, PresentedRecord } from '../shell/net-types.js';
import type { ZoneAnswer } from './dns-records.js';
import { CLASS_IN, encodeResponse, RCODE, TYPE, type ResourceRecord } from './dns-wire.js';

/** The UDP payload size dig's EDNS0 OPT record offers (BIND's default), which CoreDNS echoes. */
export const DIG_EDNS_UDP_SIZE = 4096;

export function presentRecord(rr: ResourceRecord): PresentedRecord {
  return { name: rr.name, ttl: rr.ttl, type: rr.type, data: recordData(rr) };
}

function recordData(rr: ResourceRecord): string {
  switch (rr.type) {
    case 'A': case 'AAAA': return rr.address;
    case 'CNAME': case 'NS': case 'PTR': return rr.target;
    case 'TXT': return `"${rr.text.replace(/["\\]/g, '\\$&')}"`;
    case 'SRV': return `${rr.priority} ${rr.weight} ${rr.port} ${rr.target}`;
    case 'SOA': return `${rr.mname} ${rr.rname} ${rr.serial} ${rr.refresh} ${rr.retry} ${rr.expire} ${rr.minimum}`;
  }
}

/** The reply to a query for (fqdn, type) sent with recursion desired and an EDNS0 OPT record, as dig sends it. */
export function presentReply(fqdn: string, type: keyof typeof TYPE, z: ZoneAnswer & { delayMs?: number }): DNSReply {
  const name = fqdn.endsWith('.') ? fqdn : `${fqdn}.`;
  const wire = encodeResponse({
    id: 0, opcode: 0, rd: true, aa: z.authoritative, ...(z.recursionAvailable ? { ra: true } : {}), rcode: RCODE[z.rcode],
    question: { name, type: TYPE[type], class: CLASS_IN }, answer: z.answer, authority: z.authority, additional: z.additional,
    ednsUdpSize: DIG_EDNS_UDP_SIZE,
  });
  return {
    status: z.rcode, aa: z.authoritative, ra: z.recursionAvailable ?? false,
    answer: z.answer.map(presentRecord), authority: z.authority.map(presentRecord), additional: z.additional.map(presentRecord),
    size: wire.length, delayMs: z.delayMs ?? 0,
  };
}
