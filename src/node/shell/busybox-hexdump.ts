/**
 * `hexdump -C` (busybox and util-linux print the same canonical format):
 * per 16 bytes the offset (8 hex digits), the bytes in hex in two groups
 * of eight, and the printable ASCII between bars; a run of lines equal to
 * the one before is one `*`; the last line is the total length. Other
 * formats are refused with busybox's usage line rather than misprinted.
 */
import type { Step } from './types.js';

type Out = (text: string) => Generator<Step, void, void>;

export interface HexdumpIO {
  stdinBytes(): Uint8Array;
  /** A file's bytes; undefined when there is none. */
  readFile(path: string): Uint8Array | undefined;
  out: Out;
  err: Out;
}

const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

/** The canonical dump of `data`. */
export function canonicalHexdump(data: Uint8Array): string {
  let out = '';
  let previous: string | undefined;
  let squeezing = false;
  for (let off = 0; off < data.length; off += 16) {
    const chunk = data.subarray(off, off + 16);
    const body = Array.from(chunk, (b, i) => hex(b, 2) + ' ' + (i === 7 ? ' ' : '')).join('').padEnd(49, ' ');
    const ascii = Array.from(chunk, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    const line = `${body} |${ascii}|`;
    if (line === previous && chunk.length === 16) {
      if (!squeezing) { out += '*\n'; squeezing = true; }
      continue;
    }
    squeezing = false;
    previous = line;
    out += `${hex(off, 8)}  ${line}\n`;
  }
  return data.length ? out + `${hex(data.length, 8)}\n` : out;
}

export function* busyboxHexdump(args: readonly string[], io: HexdumpIO): Generator<Step, number, void> {
  const opts = args.filter((a) => a.startsWith('-') && a !== '-');
  const files = args.filter((a) => !a.startsWith('-') || a === '-');
  if (opts.length !== 1 || opts[0] !== '-C') {
    yield* io.err('Usage: hexdump [-bcCdefnosvx] [FILE]...\n');
    return 1;
  }
  const parts: Uint8Array[] = [];
  if (!files.length) parts.push(io.stdinBytes());
  let code = 0;
  for (const f of files) {
    const b = f === '-' ? io.stdinBytes() : io.readFile(f);
    if (b === undefined) { yield* io.err(`hexdump: ${f}: No such file or directory\n`); code = 1; continue; }
    parts.push(b);
  }
  const dump = canonicalHexdump(Buffer.concat(parts));
  if (dump) yield* io.out(dump);
  return code;
}
