/** apiextensions.k8s.io: CustomResourceDefinitions; the custom resources themselves are served by CustomResourceDefinitionController. */
import type { ResourceDef } from '../types.js';
import { customresourcedefinitions } from './customresourcedefinitions.js';

export const apiextensionsResources: ResourceDef[] = [customresourcedefinitions];
export { CustomResourceDefinitionController } from './crd-controller.js';
