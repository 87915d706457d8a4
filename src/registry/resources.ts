import { coreResources } from './core/index.js';
import { groupResources } from './groups/index.js';
import { reviewResources } from './auth/index.js';
import { rbacResources } from './rbac/index.js';
import { apiextensionsResources } from './apiextensions/index.js';
import type { ResourceDef } from './types.js';
import { guardRbacEscalation } from './auth/escalation-guard.js';

/**
 * Every served resource: the exported definitions themselves, so code may name one directly
 * (the RBAC kinds' with their escalation checks added).
 */
export function allResources(): ResourceDef[] {
  return guardRbacEscalation([...coreResources, ...groupResources, ...rbacResources, ...reviewResources, ...apiextensionsResources]);
}
