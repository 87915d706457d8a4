/**
 * Just enough DER to take a PKCS#10 request apart synchronously (strategy
 * validation is synchronous, and the X.509 library's parsing is not what
 * it needs): the tag-length-value elements of a buffer, without decoding
 * their contents.
 */

/** One element: its tag, and where its header and contents are in the buffer. */
export interface DerElement { tag: number; start: number; contentStart: number; end: number }

export class DerError extends Error {}

/** The element at `offset` of `buf` (definite lengths only, as DER requires). */
export function derElement(buf: Uint8Array, offset: number): DerElement {
  if (offset + 2 > buf.length) throw new DerError('asn1: syntax error: data truncated');
  const tag = buf[offset]!;
  let length = buf[offset + 1]!;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4) throw new DerError('asn1: syntax error: indefinite length found (not DER)');
    if (contentStart + octets > buf.length) throw new DerError('asn1: syntax error: data truncated');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + buf[contentStart + i]!;
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > buf.length) throw new DerError('asn1: syntax error: data truncated');
  return { tag, start: offset, contentStart, end };
}

/** The elements inside a constructed element (a SEQUENCE's members), in order. */
export function derChildren(buf: Uint8Array, parent: DerElement): DerElement[] {
  const out: DerElement[] = [];
  for (let at = parent.contentStart; at < parent.end;) {
    const e = derElement(buf, at);
    out.push(e);
    at = e.end;
  }
  return out;
}

export const DER_SEQUENCE = 0x30;
export const DER_OID = 0x06;
export const DER_BIT_STRING = 0x03;
