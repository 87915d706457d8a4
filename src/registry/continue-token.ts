import { posix } from 'node:path';
import { goJSONSyntaxError } from './go-json-check.js';

/**
 * Continue tokens as apiserver/pkg/storage/continue.go writes and reads them: unpadded base64url
 * of {"v":"meta.k8s.io/v1","rv":<revision>,"start":<key after the prefix>}. A token that does not
 * decode is refused with the decoder's own words.
 */

const INVALID = 'continue key is not valid';

export function encodeContinue(revision: number, startKey: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: startKey })).toString('base64url');
}

const ALPHABET = /^[A-Za-z0-9_-]$/;

/** base64.RawURLEncoding.DecodeString, with its CorruptInputError text. */
function decodeRawURL(s: string): Buffer {
  let valid = 0;
  let lastValid = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '\n' || c === '\r') continue;
    if (!ALPHABET.test(c)) throw new Error(`illegal base64 data at input byte ${i}`);
    valid++;
    lastValid = i;
  }
  if (valid % 4 === 1) throw new Error(`illegal base64 data at input byte ${lastValid}`);
  return Buffer.from(s.replace(/[\r\n]/g, ''), 'base64url');
}

/** Go's name for a JSON value's type in an UnmarshalTypeError. */
function jsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return `number ${v}`;
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** json.Unmarshal into continueToken: field names match in any case; the first type error wins. */
function unmarshalToken(data: Buffer): { v: string; rv: number; start: string } {
  const syntax = goJSONSyntaxError(data);
  if (syntax) throw new Error(syntax);
  const raw: unknown = JSON.parse(data.toString('utf8'));
  const out = { v: '', rv: 0, start: '' };
  if (raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`json: cannot unmarshal ${jsonType(raw).split(' ')[0]} into Go value of type storage.continueToken`);
  }
  let typeError: string | undefined;
  const wrongType = (key: string, v: unknown, goType: string) => {
    typeError ??= `json: cannot unmarshal ${jsonType(v)} into Go struct field continueToken.${key} of type ${goType}`;
  };
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const key = k.toLowerCase();
    if (v === null) continue;
    if (key === 'v' || key === 'start') {
      if (typeof v === 'string') out[key] = v; else wrongType(key, v, 'string');
    } else if (key === 'rv') {
      const text = typeof v === 'number' ? String(v) : '';
      if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2 ** 63 && !/[.eE]/.test(text)) out.rv = v;
      else wrongType(key, v, 'int64');
    }
  }
  if (typeError) throw new Error(typeError);
  return out;
}

/** Go's path.Clean. */
function pathClean(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/**
 * DecodeContinue: the key to continue after (relative to the list's prefix) and the revision
 * (negative: the latest). Throws Error with the decoder's message.
 */
export function decodeContinue(token: string): { startKey: string; revision: number } {
  let data: Buffer;
  let t: { v: string; rv: number; start: string };
  try {
    data = decodeRawURL(token);
    t = unmarshalToken(data);
  } catch (e) {
    throw new Error(`${INVALID}: ${(e as Error).message}`, { cause: e });
  }
  if (t.v !== 'meta.k8s.io/v1') throw new Error(`${INVALID}: server does not recognize this encoded version ${t.v}`);
  if (t.rv === 0) throw new Error(`${INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  if (!t.start) throw new Error(`${INVALID}: encoded start key empty (version meta.k8s.io/v1)`);
  // Defends against path traversal: the key may not climb above the list's prefix.
  const key = t.start.startsWith('/') ? t.start : `/${t.start}`;
  if (pathClean(key) !== key) throw new Error(`${INVALID}: ${t.start}`);
  return { startKey: key.slice(1), revision: t.rv };
}
