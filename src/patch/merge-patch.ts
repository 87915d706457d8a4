/**
 * RFC 7386 JSON merge patch as evanphx/json-patch v4's MergePatch applies it
 * for kube-apiserver. Beyond the RFC it prunes nulls from the values it
 * inserts, arrays included, except when an object patch value replaces a
 * non-object that already exists.
 */
import { badRequest } from './errors.js';
import { goJSONParse, GoJSONError } from './go-json.js';
import { clone, has, isObject, setKey, type Json, type JsonObject } from './json.js';

/** jsonpatch.ErrBadJSONPatch, which the handler answers with 400 BadRequest. */
export const INVALID_MERGE_PATCH = 'Invalid JSON Patch';

/** Drops the nulls of a patch value (which the caller owns) in place, at any depth, without recursion. */
function pruneNulls(v: Json): Json {
  const stack: Json[] = [v];
  while (stack.length) {
    const x = stack.pop()!;
    if (Array.isArray(x)) {
      let kept = 0;
      for (const e of x) {
        if (e === null) continue;
        x[kept++] = e;
        if (typeof e === 'object') stack.push(e);
      }
      x.length = kept;
    } else if (isObject(x)) {
      for (const k of Object.keys(x)) {
        const e = x[k]!;
        if (e === null) delete x[k];
        else if (typeof e === 'object') stack.push(e);
      }
    }
  }
  return v;
}

function merge(cur: Json, patch: Json): Json {
  if (!isObject(cur)) return pruneNulls(patch);
  if (!isObject(patch)) return patch;
  mergeDocs(cur, patch);
  return cur;
}

function mergeDocs(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k]!;
    if (v === null) delete doc[k];
    else if (!has(doc, k) || doc[k] === null) setKey(doc, k, pruneNulls(v));
    else setKey(doc, k, merge(doc[k]!, v));
  }
}

/**
 * Merges a decoded patch into a copy of doc (or, with `owned`, into doc and
 * patch themselves, which the caller gives up). Patches that are not objects
 * or arrays are rejected like upstream.
 */
export function applyMergePatch(doc: Json, patch: Json, owned = false): Json {
  if (patch === null || (!isObject(patch) && !Array.isArray(patch))) throw badRequest(INVALID_MERGE_PATCH);
  const p = owned ? patch : clone(patch);
  if (Array.isArray(p)) return pruneNulls(p);
  if (!isObject(doc)) return pruneNulls(p);
  const out = owned ? doc : clone(doc);
  mergeDocs(out, p);
  return out;
}

/** Decodes a merge patch body; syntax errors become upstream's 400 "Invalid JSON Patch". */
export function decodeMergePatch(body: string): Json {
  try { return goJSONParse(body); } catch (e) {
    if (e instanceof GoJSONError) throw badRequest(INVALID_MERGE_PATCH);
    throw e;
  }
}
