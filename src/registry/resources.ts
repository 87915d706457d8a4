import { coreResources } from './core/index.js';
import { groupResources } from './groups/index.js';
import { reviewResources } from './auth/index.js';
import { apiextensionsResources } from './apiextensions/index.js';
import type { ResourceDef } from './types.js';

/** Every served resource: the exported definitions themselves, so code may name one directly. */
export function allResources(): ResourceDef[] {
  return [...coreResources, ...groupResources, ...reviewResources, ...apiextensionsResources];
}
