/** The credential spec of the Kubernetes documentation's "Configure GMSA for Windows Pods and containers" (named in lower case, as its pods name it). */
export const GMSA_CREDSPEC = `apiVersion: windows.k8s.io/v1
kind: GMSACredentialSpec
metadata:
  name: gmsa-webapp1
credspec:
  ActiveDirectoryConfig:
    GroupManagedServiceAccounts:
    - Name: WebApp1
      Scope: CONTOSO
    - Name: WebApp1
      Scope: contoso.com
  CmsPlugins:
  - ActiveDirectory
  DomainJoinConfig:
    DnsName: contoso.com
    DnsTreeName: contoso.com
    Guid: 244818ae-87ac-4fcd-92ec-e79e5252348a
    MachineAccountName: WebApp1
    NetBiosName: CONTOSO
    Sid: S-1-5-21-2126449477-2524075714-3094792973
`;
