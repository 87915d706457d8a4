/**
 * Go's base64.StdEncoding decoding, for the []byte fields JSON carries as
 * base64 (Secret.data, ConfigMap.binaryData): the same acceptance (line
 * breaks ignored, padding required) and the same "illegal base64 data at
 * input byte N" offsets.
 */
import { DecodeError } from '../apimachinery/quantity.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));
const PAD = 0x3d;
const isNewline = (b: number) => b === 0x0a || b === 0x0d;

const corrupt = (at: number) => new DecodeError(`illegal base64 data at input byte ${at}`);

/** Decodes like Go's Encoding.Decode; throws DecodeError at the first bad byte. */
export function goBase64Decode(s: string): Buffer {
  const src = Buffer.from(s, 'utf8');
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const dbuf: [number, number, number, number] = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        // StdEncoding pads, so a short final quantum is corrupt.
        throw corrupt(si - j);
      }
      const b = src.readUInt8(si++);
      const v = DECODE.get(b);
      if (v !== undefined) { dbuf[j] = v; continue; }
      if (isNewline(b)) { j--; continue; }
      if (b !== PAD) throw corrupt(si - 1);
      // Padding: only after two or three data characters, and nothing but newlines after it.
      if (j === 0 || j === 1) throw corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src.readUInt8(si))) si++;
        if (si === src.length) throw corrupt(src.length);
        if (src.readUInt8(si) !== PAD) throw corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src.readUInt8(si))) si++;
      if (si < src.length) throw corrupt(si);
      dlen = j;
      break;
    }
    const [d0, d1, d2, d3] = dbuf;
    const val = (d0 << 18) | (d1 << 12) | (d2 << 6) | d3;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (dlen < 4) break;
  }
  return Buffer.from(out);
}
