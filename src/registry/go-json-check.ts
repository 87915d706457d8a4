/**
 * encoding/json's syntax check (checkValid), with Go's error texts: what json.Unmarshal says of
 * bytes that are not JSON. Used where upstream hands a client's bytes to json.Unmarshal and
 * echoes the error (continue tokens).
 */

/** Go's quoteChar: how the scanner names the offending byte. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const ch = String.fromCodePoint(c);
  let q: string;
  if (c === 0x07) q = '\\a';
  else if (c === 0x08) q = '\\b';
  else if (c === 0x0c) q = '\\f';
  else if (c === 0x0a) q = '\\n';
  else if (c === 0x0d) q = '\\r';
  else if (c === 0x09) q = '\\t';
  else if (c === 0x0b) q = '\\v';
  else if (c === 0x5c) q = '\\\\';
  else if (c < 0x20 || c === 0x7f) q = `\\x${c.toString(16).padStart(2, '0')}`;
  else if (c >= 0x80 && c < 0xa0) q = `\\u${c.toString(16).padStart(4, '0')}`;
  else if (c === 0xad) q = '\\u00ad';
  else q = ch;
  return `'${q}'`;
}

class SyntaxError extends Error {}

const isSpace = (c: number | undefined) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number | undefined) => c !== undefined && (isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46));

/** Returns undefined for valid JSON, else Go's error text. */
export function goJSONSyntaxError(data: Buffer): string | undefined {
  let i = 0;
  const eof = () => i >= data.length;
  const fail = (context: string): never => {
    if (eof()) throw new SyntaxError('unexpected end of JSON input');
    throw new SyntaxError(`invalid character ${quoteChar(data.readUInt8(i))} ${context}`);
  };
  const skip = () => { while (!eof() && isSpace(data[i])) i++; };
  const literal = (word: string) => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (eof() || data[i] !== word.charCodeAt(k)) fail(`in literal ${word} (expecting '${word.charAt(k)}')`);
    }
    i++;
  };
  const string = () => {
    i++;
    for (;;) {
      if (eof()) fail('');
      const c = data.readUInt8(i);
      if (c === 0x22) { i++; return; }
      if (c === 0x5c) {
        i++;
        if (eof()) fail('');
        const e = data.readUInt8(i);
        if (e === 0x75) {
          for (let k = 0; k < 4; k++) { i++; if (eof() || !isHex(data[i])) fail('in \\u hexadecimal character escape'); }
        } else if (!'"\\/bfnrt'.includes(String.fromCharCode(e))) fail('in string escape code');
        i++;
        continue;
      }
      if (c < 0x20) fail('in string literal');
      i++;
    }
  };
  const number = () => {
    if (data[i] === 0x2d) { i++; if (eof() || !isDigit(data[i])) fail('in numeric literal'); }
    if (data[i] === 0x30) i++;
    else while (!eof() && isDigit(data[i])) i++;
    if (!eof() && data[i] === 0x2e) {
      i++;
      if (eof() || !isDigit(data[i])) fail('after decimal point in numeric literal');
      while (!eof() && isDigit(data[i])) i++;
    }
    if (!eof() && (data[i] === 0x65 || data[i] === 0x45)) {
      i++;
      if (!eof() && (data[i] === 0x2b || data[i] === 0x2d)) i++;
      if (eof() || !isDigit(data[i])) fail('in exponent of numeric literal');
      while (!eof() && isDigit(data[i])) i++;
    }
  };
  const value = (): void => {
    skip();
    if (eof()) fail('');
    const c = data.readUInt8(i);
    if (c === 0x7b) {
      i++; skip();
      if (!eof() && data[i] === 0x7d) { i++; return; }
      for (;;) {
        skip();
        if (eof() || data[i] !== 0x22) fail('looking for beginning of object key string');
        string(); skip();
        if (eof() || data[i] !== 0x3a) fail('after object key');
        i++;
        value(); skip();
        if (!eof() && data[i] === 0x2c) { i++; continue; }
        if (!eof() && data[i] === 0x7d) { i++; return; }
        fail('after object key:value pair');
      }
    }
    if (c === 0x5b) {
      i++; skip();
      if (!eof() && data[i] === 0x5d) { i++; return; }
      for (;;) {
        value(); skip();
        if (!eof() && data[i] === 0x2c) { i++; continue; }
        if (!eof() && data[i] === 0x5d) { i++; return; }
        fail('after array element');
      }
    }
    if (c === 0x22) return string();
    if (c === 0x2d || isDigit(c)) return number();
    if (c === 0x74) return literal('true');
    if (c === 0x66) return literal('false');
    if (c === 0x6e) return literal('null');
    fail('looking for beginning of value');
  };
  try {
    value();
    skip();
    if (!eof()) fail('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxError) return e.message;
    throw e;
  }
}
