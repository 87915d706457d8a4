/**
 * The byte layouts a Windows program writes text in, and how readers that
 * sniff a byte order mark (cmd's `type`, PowerShell's Get-Content) turn the
 * bytes back into text. Windows PowerShell 5.1's Out-File (and so its `>`)
 * writes UTF-16 LE with a BOM ("Unicode"); cmd.exe and Set-Content write
 * single-byte text, which for the ASCII the emulated programs produce is the
 * same bytes as UTF-8.
 */

/** `utf8`: no preamble (cmd, Set-Content, PowerShell 7); the others as .NET's Encoding of that name writes them. */
export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'utf16be' | 'utf32le';

const PREAMBLE: Record<TextEncoding, number[]> = {
  'utf8': [],
  'utf8-bom': [0xef, 0xbb, 0xbf],
  'utf16le': [0xff, 0xfe],
  'utf16be': [0xfe, 0xff],
  'utf32le': [0xff, 0xfe, 0x00, 0x00],
};

function body(text: string, enc: TextEncoding): Buffer {
  switch (enc) {
    case 'utf8': case 'utf8-bom': return Buffer.from(text, 'utf8');
    case 'utf16le': return Buffer.from(text, 'utf16le');
    case 'utf16be': return Buffer.from(text, 'utf16le').swap16();
    case 'utf32le': {
      const cps = [...text].map((c) => c.codePointAt(0) ?? 0);
      const out = Buffer.alloc(cps.length * 4);
      cps.forEach((cp, i) => out.writeUInt32LE(cp, i * 4));
      return out;
    }
  }
}

/**
 * The bytes of `text` in `enc`. A .NET StreamWriter writes the preamble only
 * when it starts at position 0 of the stream: a new or truncated file, or an
 * empty one it appends to, never in the middle of a file.
 */
export function encodeText(text: string, enc: TextEncoding, atStart: boolean): Buffer {
  const data = body(text, enc);
  return atStart && PREAMBLE[enc].length ? Buffer.concat([Buffer.from(PREAMBLE[enc]), data]) : data;
}

/** Text of a file's bytes as a BOM-sniffing reader decodes it; without a BOM, as UTF-8. */
export function decodeText(b: Buffer): string {
  if (b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0 && b.length >= 4) {
    let s = '';
    for (let i = 4; i + 3 < b.length; i += 4) s += String.fromCodePoint(b.readUInt32LE(i));
    return s;
  }
  if (b[0] === 0xff && b[1] === 0xfe) return b.subarray(2, 2 + ((b.length - 2) & ~1)).toString('utf16le');
  if (b[0] === 0xfe && b[1] === 0xff) return Buffer.from(b.subarray(2, 2 + ((b.length - 2) & ~1))).swap16().toString('utf16le');
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return b.subarray(3).toString('utf8');
  return b.toString('utf8');
}

/**
 * Out-File's `-Encoding` names, case-insensitive, to the layout written.
 * Windows PowerShell 5.1 takes its ValidateSet (`string` and `unknown` are
 * Unicode there, `utf8` has a BOM); PowerShell 7 takes .NET names where
 * `utf8` has none. `default`, `oem`, `ascii` and `ansi` are single-byte, as
 * UTF-8 is for ASCII text. Undefined for a name the version does not accept.
 */
export function outFileEncoding(name: string, version: 5 | 7): TextEncoding | undefined {
  const n = name.toLowerCase();
  if (version === 7) {
    switch (n) {
      case 'utf8': case 'utf8nobom': case 'ascii': case 'ansi': case 'oem': case 'default': return 'utf8';
      case 'utf8bom': return 'utf8-bom';
      case 'unicode': return 'utf16le';
      case 'bigendianunicode': return 'utf16be';
      case 'utf32': return 'utf32le';
      default: return undefined;
    }
  }
  switch (n) {
    case 'unicode': case 'string': case 'unknown': return 'utf16le';
    case 'bigendianunicode': return 'utf16be';
    case 'utf8': return 'utf8-bom';
    case 'utf32': return 'utf32le';
    case 'utf7': case 'ascii': case 'default': case 'oem': return 'utf8';
    default: return undefined;
  }
}

/** The names Windows PowerShell 5.1's Out-File -Encoding accepts, in its ValidateSet's order. */
export const OUT_FILE_ENCODINGS_51 = 'unknown,string,unicode,bigendianunicode,utf8,utf7,utf32,ascii,default,oem';
