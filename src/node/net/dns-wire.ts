/**
 * The DNS message format (RFC 1035 section 4, EDNS0's OPT record of RFC
 * 6891, SRV of RFC 2782): what the cluster DNS server reads (a query) and
 * writes (a response). Only the record types the cluster zone answers with
 * are encoded; a query's question may be of any type. Written here rather
 * than taken from dns-packet because responses compress names (RFC 1035
 * 4.1.4) as CoreDNS's do, which decides when an answer outgrows 512 bytes
 * and is truncated; dns-packet does not compress when it encodes.
 */

export const TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, TXT: 16, AAAA: 28, SRV: 33, OPT: 41, ANY: 255 } as const;
export const CLASS_IN = 1;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
export type Rcode = keyof typeof RCODE;

export type RecordData =
  | { type: 'A'; address: string }
  | { type: 'AAAA'; address: string }
  | { type: 'CNAME' | 'NS' | 'PTR'; target: string }
  | { type: 'TXT'; text: string }
  | { type: 'SRV'; priority: number; weight: number; port: number; target: string }
  | { type: 'SOA'; mname: string; rname: string; serial: number; refresh: number; retry: number; expire: number; minimum: number };

/** A resource record; names are fully qualified, with the trailing dot. */
export type ResourceRecord = { name: string; ttl: number } & RecordData;

export interface Question { name: string; type: number; class: number }

export interface Query {
  id: number;
  opcode: number;
  rd: boolean;
  question?: Question;
  /** The requestor's UDP payload size from its OPT record; undefined without EDNS0. */
  ednsUdpSize?: number;
}

export interface Response {
  id: number;
  opcode: number;
  rd: boolean;
  aa: boolean;
  tc?: boolean;
  /** RA: set by a recursive resolver's answers (forwarded ones carry the upstream's). */
  ra?: boolean;
  rcode: number;
  question?: Question;
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
  /** The UDP payload size to advertise in an OPT record; none when undefined. */
  ednsUdpSize?: number;
}

export class MalformedMessage extends Error {}

/** Reads a (possibly compressed) name at `offset`: the name (trailing dot, lower case kept as sent) and where it ends. */
function readName(buf: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let pos = offset;
  let end = -1;
  for (let jumps = 0; ; ) {
    if (pos >= buf.length) throw new MalformedMessage('name past the end');
    const len = buf[pos]!;
    if (len === 0) { pos += 1; break; }
    if ((len & 0xc0) === 0xc0) {
      if (pos + 1 >= buf.length || ++jumps > 64) throw new MalformedMessage('bad compression pointer');
      if (end < 0) end = pos + 2;
      pos = ((len & 0x3f) << 8) | buf[pos + 1]!;
      continue;
    }
    if (len & 0xc0) throw new MalformedMessage('bad label type');
    if (pos + 1 + len > buf.length) throw new MalformedMessage('label past the end');
    labels.push(buf.toString('latin1', pos + 1, pos + 1 + len));
    pos += 1 + len;
  }
  return { name: labels.length ? `${labels.join('.')}.` : '.', end: end < 0 ? pos : end };
}

/** Decodes a query's header, its first question, and its OPT record. */
export function decodeQuery(buf: Buffer): Query {
  if (buf.length < 12) throw new MalformedMessage('short header');
  const id = buf.readUInt16BE(0);
  const flags = buf.readUInt16BE(2);
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  const ns = buf.readUInt16BE(8);
  const ar = buf.readUInt16BE(10);
  const query: Query = { id, opcode: (flags >> 11) & 0xf, rd: (flags & 0x0100) !== 0 };
  let pos = 12;
  for (let i = 0; i < qd; i++) {
    const { name, end } = readName(buf, pos);
    if (end + 4 > buf.length) throw new MalformedMessage('short question');
    if (i === 0) query.question = { name, type: buf.readUInt16BE(end), class: buf.readUInt16BE(end + 2) };
    pos = end + 4;
  }
  for (let i = 0; i < an + ns + ar; i++) {
    const { end } = readName(buf, pos);
    if (end + 10 > buf.length) throw new MalformedMessage('short record');
    const type = buf.readUInt16BE(end);
    const rdlength = buf.readUInt16BE(end + 8);
    if (type === TYPE.OPT && i >= an + ns) query.ednsUdpSize = buf.readUInt16BE(end + 2);
    pos = end + 10 + rdlength;
    if (pos > buf.length) throw new MalformedMessage('record data past the end');
  }
  return query;
}

/** Writes a message into one growing buffer, compressing names against suffixes already written (RFC 1035 4.1.4). */
class Writer {
  private buf = Buffer.allocUnsafe(512);
  private pos = 0;
  private readonly names = new Map<string, number>();

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  u8(v: number): void { this.room(1); this.buf[this.pos++] = v & 0xff; }
  u16(v: number): void { this.room(2); this.buf.writeUInt16BE(v & 0xffff, this.pos); this.pos += 2; }
  u32(v: number): void { this.room(4); this.buf.writeUInt32BE(v >>> 0, this.pos); this.pos += 4; }
  bytes(b: Uint8Array): void { this.room(b.length); this.buf.set(b, this.pos); this.pos += b.length; }

  name(fqdn: string): void {
    const name = fqdn.endsWith('.') ? fqdn.slice(0, -1) : fqdn;
    const lower = name.toLowerCase();
    let start = 0;
    while (start < name.length) {
      const suffix = start === 0 ? lower : lower.slice(start);
      const at = this.names.get(suffix);
      if (at !== undefined) { this.u16(0xc000 | at); return; }
      if (this.pos < 0x4000) this.names.set(suffix, this.pos);
      let dot = name.indexOf('.', start);
      if (dot < 0) dot = name.length;
      const len = dot - start;
      if (len > 63) throw new MalformedMessage(`label too long: ${name.slice(start, dot)}`);
      if (len > 0) {
        this.room(1 + len);
        this.buf[this.pos++] = len;
        this.pos += this.buf.write(name.slice(start, dot), this.pos, 'latin1');
      }
      start = dot + 1;
    }
    this.u8(0);
  }

  /** Writes the record data with its RDLENGTH in front (names in it may be compressed). */
  rdata(write: () => void): void {
    const lenAt = this.pos;
    this.u16(0);
    write();
    this.buf.writeUInt16BE(this.pos - lenAt - 2, lenAt);
  }

  done(): Buffer { return this.buf.subarray(0, this.pos); }
}

function ipv4(address: string): Uint8Array {
  const b = new Uint8Array(4);
  let i = 0;
  for (const o of address.split('.')) b[i++] = Number(o);
  return b;
}

function ipv6(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  const b = Buffer.alloc(16);
  groups.forEach((g, i) => b.writeUInt16BE(parseInt(g, 16) || 0, i * 2));
  return b;
}

function writeRecord(w: Writer, rr: ResourceRecord): void {
  w.name(rr.name);
  w.u16(TYPE[rr.type]);
  w.u16(CLASS_IN);
  w.u32(rr.ttl);
  w.rdata(() => {
    switch (rr.type) {
      case 'A': w.bytes(ipv4(rr.address)); break;
      case 'AAAA': w.bytes(ipv6(rr.address)); break;
      case 'CNAME': case 'NS': case 'PTR': w.name(rr.target); break;
      case 'TXT': {
        const t = Buffer.from(rr.text, 'utf8');
        for (let i = 0; i === 0 || i < t.length; i += 255) { const part = t.subarray(i, i + 255); w.u8(part.length); w.bytes(part); }
        break;
      }
      case 'SRV': w.u16(rr.priority); w.u16(rr.weight); w.u16(rr.port); w.name(rr.target); break;
      case 'SOA': w.name(rr.mname); w.name(rr.rname); w.u32(rr.serial); w.u32(rr.refresh); w.u32(rr.retry); w.u32(rr.expire); w.u32(rr.minimum); break;
    }
  });
}

/** Encodes a response. */
export function encodeResponse(r: Response): Buffer {
  const w = new Writer();
  w.u16(r.id);
  w.u16(0x8000 | ((r.opcode & 0xf) << 11) | (r.aa ? 0x0400 : 0) | (r.tc ? 0x0200 : 0) | (r.rd ? 0x0100 : 0) | (r.ra ? 0x0080 : 0) | (r.rcode & 0xf));
  w.u16(r.question ? 1 : 0);
  w.u16(r.answer.length);
  w.u16(r.authority.length);
  w.u16(r.additional.length + (r.ednsUdpSize === undefined ? 0 : 1));
  if (r.question) { w.name(r.question.name); w.u16(r.question.type); w.u16(r.question.class); }
  for (const rr of r.answer) writeRecord(w, rr);
  for (const rr of r.authority) writeRecord(w, rr);
  for (const rr of r.additional) writeRecord(w, rr);
  if (r.ednsUdpSize !== undefined) {
    // OPT: root name, the payload size in CLASS, extended rcode/version/flags 0, no options.
    w.u8(0);
    w.u16(TYPE.OPT); w.u16(r.ednsUdpSize); w.u32(0); w.u16(0);
  }
  return w.done();
}

/** A query message (for clients: the benchmark, tests). */
export function encodeQuery(id: number, name: string, type: number, rd = true): Buffer {
  const w = new Writer();
  w.u16(id); w.u16(rd ? 0x0100 : 0); w.u16(1); w.u16(0); w.u16(0); w.u16(0);
  w.name(name); w.u16(type); w.u16(CLASS_IN);
  return w.done();
}
