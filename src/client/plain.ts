/**
 * A typed resource reference read as one to plain objects: for components
 * that handle an object as JSON (`KObject`) rather than as its typed shape,
 * as most of winkube's controllers still do.
 */
import type { KObject } from '../apimachinery/object.js';
import type { ResourceRef } from './types.js';

export function plain(ref: ResourceRef<unknown>): ResourceRef<KObject> {
  return ref as ResourceRef<KObject>;
}
