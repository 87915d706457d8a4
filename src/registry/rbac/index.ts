/**
 * rbac.authorization.k8s.io/v1 (pkg/registry/rbac): its four kinds in
 * upstream's discovery order.
 */
import type { ResourceDef } from '../types.js';
import { clusterrolebindings } from './clusterrolebindings.js';
import { clusterroles } from './clusterroles.js';
import { rolebindings } from './rolebindings.js';
import { roles } from './roles.js';

export { clusterrolebindings, clusterroles, rolebindings, roles };

export const rbacResources: ResourceDef[] = [clusterrolebindings, clusterroles, rolebindings, roles];
