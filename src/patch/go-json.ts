/**
 * JSON decoding that fails the way Go's encoding/json does, so a malformed
 * patch body gets the apiserver's own error text ("invalid character 'x'
 * looking for beginning of value", "unexpected end of JSON input").
 * Validation mirrors Go's byte scanner; the value itself comes from JSON.parse.
 */
import type { Json } from './json.js';

export class GoJSONError extends Error {}

const MAX_DEPTH = 10000;

function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  const named: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x5c: '\\\\' };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // Go quotes string(byte) as a rune, so a UTF-8 lead byte prints as its Latin-1 character.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `'\\u00${c.toString(16).padStart(2, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

const enum P { ObjectKey, ObjectValue, ArrayValue }

/** Returns Go's SyntaxError text for an invalid document, or undefined when it is valid JSON. */
export function goSyntaxError(bytes: Uint8Array): string | undefined {
  const stack: P[] = [];
  let err: string | undefined;
  let endTop = false;
  type Step = (c: number) => void;
  const fail = (c: number, ctx: string) => { err ??= `invalid character ${quoteChar(c)} ${ctx}`; };
  const push = (c: number, p: P, next: Step) => {
    stack.push(p);
    if (stack.length > MAX_DEPTH) fail(c, 'exceeded max depth');
    else step = next;
  };
  const literal = (word: string, i: number): Step => (c) => {
    if (c !== word.charCodeAt(i)) return fail(c, `in literal ${word} (expecting '${word[i]}')`);
    step = i + 1 === word.length ? endValue : literal(word, i + 1);
  };
  const beginValue: Step = (c) => {
    if (isSpace(c)) return;
    switch (c) {
      case 0x7b: return push(c, P.ObjectKey, beginStringOrEmpty);
      case 0x5b: return push(c, P.ArrayValue, beginValueOrEmpty);
      case 0x22: step = inString; return;
      case 0x2d: step = neg; return;
      case 0x30: step = zero; return;
      case 0x74: step = literal('true', 1); return;
      case 0x66: step = literal('false', 1); return;
      case 0x6e: step = literal('null', 1); return;
    }
    if (c >= 0x31 && c <= 0x39) { step = digits; return; }
    fail(c, 'looking for beginning of value');
  };
  const beginValueOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x5d) return endValue(c);
    beginValue(c);
  };
  const beginStringOrEmpty: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x7d) { stack[stack.length - 1] = P.ObjectValue; return endValue(c); }
    beginString(c);
  };
  const beginString: Step = (c) => {
    if (isSpace(c)) return;
    if (c === 0x22) { step = inString; return; }
    fail(c, 'looking for beginning of object key string');
  };
  const endTopStep: Step = (c) => { if (!isSpace(c)) fail(c, 'after top-level value'); };
  const endValue: Step = (c) => {
    const n = stack.length;
    if (n === 0) { step = endTopStep; endTop = true; return endTopStep(c); }
    if (isSpace(c)) { step = endValue; return; }
    switch (stack[n - 1]) {
      case P.ObjectKey:
        if (c === 0x3a) { stack[n - 1] = P.ObjectValue; step = beginValue; return; }
        return fail(c, 'after object key');
      case P.ObjectValue:
        if (c === 0x2c) { stack[n - 1] = P.ObjectKey; step = beginString; return; }
        if (c === 0x7d) return pop();
        return fail(c, 'after object key:value pair');
      default:
        if (c === 0x2c) { step = beginValue; return; }
        if (c === 0x5d) return pop();
        return fail(c, 'after array element');
    }
  };
  const pop = () => {
    stack.pop();
    if (stack.length === 0) { step = endTopStep; endTop = true; } else step = endValue;
  };
  const inString: Step = (c) => {
    if (c === 0x22) { step = endValue; return; }
    if (c === 0x5c) { step = inStringEsc; return; }
    if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEsc: Step = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) { step = inString; return; }
    if (c === 0x75) { step = hex(0); return; }
    fail(c, 'in string escape code');
  };
  const hex = (i: number): Step => (c) => {
    if (!isHex(c)) return fail(c, 'in \\u hexadecimal character escape');
    step = i === 3 ? inString : hex(i + 1);
  };
  const neg: Step = (c) => {
    if (c === 0x30) { step = zero; return; }
    if (c >= 0x31 && c <= 0x39) { step = digits; return; }
    fail(c, 'in numeric literal');
  };
  const digits: Step = (c) => { if (isDigit(c)) return; zero(c); };
  const zero: Step = (c) => {
    if (c === 0x2e) { step = dot; return; }
    if (c === 0x65 || c === 0x45) { step = exp; return; }
    endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) { step = dotDigits; return; }
    fail(c, 'after decimal point in numeric literal');
  };
  const dotDigits: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) { step = exp; return; }
    endValue(c);
  };
  const exp: Step = (c) => {
    if (c === 0x2b || c === 0x2d) { step = expSign; return; }
    expSign(c);
  };
  const expSign: Step = (c) => {
    if (isDigit(c)) { step = expDigits; return; }
    fail(c, 'in exponent of numeric literal');
  };
  const expDigits: Step = (c) => { if (!isDigit(c)) endValue(c); };

  let step: Step = beginValue;
  for (const c of bytes) {
    step(c);
    if (err) return err;
  }
  if (endTop) return undefined;
  step(0x20);
  if (err) return err;
  return endTop ? undefined : 'unexpected end of JSON input';
}

/** Parses like Go's json.Unmarshal into interface{}; throws GoJSONError with Go's message. */
export function goJSONParse(text: string): Json {
  const err = goSyntaxError(Buffer.from(text, 'utf8'));
  if (err) throw new GoJSONError(err);
  return JSON.parse(text) as Json;
}

/** Go's UnmarshalTypeError wording for a top-level value of the wrong JSON type. */
export function goTypeMismatch(v: Json, goType: string): string {
  const what = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object'
    : typeof v === 'boolean' ? 'bool' : typeof v;
  return `json: cannot unmarshal ${what} into Go value of type ${goType}`;
}
