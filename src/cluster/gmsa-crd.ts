/**
 * The GMSACredentialSpec CustomResourceDefinition (windows.k8s.io) that
 * sig-windows' windows-gmsa ships (charts/gmsa/crds/crds.yaml), which
 * `winkube up --gmsa` installs as AKS's --enable-windows-gmsa does: group
 * Managed Service Account credential specs that Windows pods name in
 * `securityContext.windowsOptions.gmsaCredentialSpecName`. v1alpha1 is
 * served, deprecated, with the same schema as v1 (the storage version).
 */
import type { CustomResourceDefinition, JSONSchemaProps } from 'kubernetes-types/apiextensions/v1.js';
import type { KObject } from '../apimachinery/object.js';

const string: JSONSchemaProps = { type: 'string' };
const object = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });

const schema: JSONSchemaProps = object({
  credspec: {
    description: 'GMSA Credential Spec',
    ...object({
      ActiveDirectoryConfig: object({
        GroupManagedServiceAccounts: { type: 'array', items: object({ Name: string, Scope: string }) },
        HostAccountConfig: object({ PluginGUID: string, PluginInput: string, PortableCcgVersion: string }),
      }),
      CmsPlugins: { type: 'array', items: string },
      DomainJoinConfig: object({
        DnsName: string, DnsTreeName: string, Guid: string, MachineAccountName: string, NetBiosName: string, Sid: string,
      }),
    }),
  },
});

export function gmsaCredentialSpecCRD(): CustomResourceDefinition & KObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: {
      name: 'gmsacredentialspecs.windows.k8s.io',
      annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/tree/master/keps/sig-windows/689-windows-gmsa' },
    },
    spec: {
      group: 'windows.k8s.io',
      versions: [
        { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: structuredClone(schema) } },
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(schema) } },
      ],
      conversion: { strategy: 'None' },
      names: { kind: 'GMSACredentialSpec', plural: 'gmsacredentialspecs' },
      scope: 'Cluster',
    },
  };
}
