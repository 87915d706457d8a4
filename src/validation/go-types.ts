/**
 * A model of the Go types of pkg/apis/core (v1.32, internal version) that a
 * PodSpec reaches, and the conversion of a v1 JSON PodSpec into values of
 * those types. Upstream prints such values in two places users see: the
 * cmp.Diff in "pod updates may not change fields other than ..." and the
 * %#v of composite bad values in field errors. Both need Go's field order,
 * field names, type names and zero values, which is what this holds.
 */
import { goQuote } from '../apimachinery/field-errors.js';
import { DecodeError, parseQuantity, type Quantity } from '../apimachinery/quantity.js';

export type GoType =
  | { kind: 'bool' | 'string' | 'int' | 'int32' | 'int64'; name?: string; stringer?: boolean }
  | { kind: 'ptr'; elem: GoType }
  | { kind: 'slice'; elem: GoType; name?: string }
  | { kind: 'map'; key: GoType; elem: GoType; name?: string }
  | { kind: 'struct'; name: string; fields: GoField[]; stringerPtr?: (v: GoStruct) => string }
  | { kind: 'quantity' };

export interface GoField {
  name: string;
  type: GoType;
  /** The v1 JSON key ('' for an embedded struct, whose fields are inline). */
  json: string;
  embedded?: boolean;
}

/** A Go value: scalars as JS scalars, nil as null, structs as objects keyed by Go field name, maps as sorted entries. */
export type GoValue = null | boolean | string | number | GoValue[] | GoStruct | GoMap | GoQuantity;
export interface GoStruct { [field: string]: GoValue }
export interface GoMap { entries: [string, GoValue][] }
export interface GoQuantity { q: Quantity | undefined; text: string }

export const isMap = (v: unknown): v is GoMap => typeof v === 'object' && v !== null && 'entries' in (v as object) && Array.isArray((v as GoMap).entries);
export const isQuantity = (v: unknown): v is GoQuantity => typeof v === 'object' && v !== null && 'text' in (v as object) && 'q' in (v as object);

// ---------------------------------------------------------------------------
// Type expressions: "string", "*int64", "[]core.Container", "map[string]string", "core.ResourceList".

const NAMED_SCALARS: Record<string, 'string' | 'int' | 'int32' | 'int64'> = {};
for (const n of ['RestartPolicy', 'DNSPolicy', 'Protocol', 'PullPolicy', 'TerminationMessagePolicy', 'URIScheme', 'Capability',
  'ProcMountType', 'SeccompProfileType', 'AppArmorProfileType', 'PodFSGroupChangePolicy', 'SupplementalGroupsPolicy',
  'PodSELinuxChangePolicy', 'TolerationOperator', 'TaintEffect', 'NodeSelectorOperator', 'UnsatisfiableConstraintAction',
  'NodeInclusionPolicy', 'OSName', 'PreemptionPolicy', 'PodConditionType', 'ContainerRestartPolicy',
  'ResourceResizeRestartPolicy', 'MountPropagationMode', 'RecursiveReadOnlyMode', 'StorageMedium', 'HostPathType',
  'AzureDataDiskCachingMode', 'AzureDataDiskKind', 'PersistentVolumeAccessMode', 'PersistentVolumeMode']) {
  NAMED_SCALARS[`core.${n}`] = 'string';
}
NAMED_SCALARS['v1.LabelSelectorOperator'] = 'string';
NAMED_SCALARS['intstr.Type'] = 'int';

const STRUCTS = new Map<string, Extract<GoType, { kind: 'struct' }>>();

export function parseType(expr: string): GoType {
  if (expr.startsWith('*')) return { kind: 'ptr', elem: parseType(expr.slice(1)) };
  if (expr.startsWith('[]')) return { kind: 'slice', elem: parseType(expr.slice(2)) };
  if (expr.startsWith('map[')) {
    const close = expr.indexOf(']');
    return { kind: 'map', key: parseType(expr.slice(4, close)), elem: parseType(expr.slice(close + 1)) };
  }
  switch (expr) {
    case 'bool': case 'string': case 'int': case 'int32': case 'int64': return { kind: expr };
    case 'resource.Quantity': return { kind: 'quantity' };
    case 'core.ResourceName': return { kind: 'string', name: expr, stringer: true };
    case 'core.ResourceList': return { kind: 'map', key: parseType('core.ResourceName'), elem: { kind: 'quantity' }, name: expr };
    default: break;
  }
  if (NAMED_SCALARS[expr]) return { kind: NAMED_SCALARS[expr], name: expr };
  const s = STRUCTS.get(expr);
  if (!s) throw new Error(`go-types: unknown type ${expr}`);
  return s;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * Declares a struct. Each field is "GoName type" or "GoName type json"; an
 * embedded field is "=TypeName". Field types may name structs declared later.
 */
function struct(name: string, spec: string[]): void {
  const t: Extract<GoType, { kind: 'struct' }> = { kind: 'struct', name, fields: [] };
  STRUCTS.set(name, t);
  pending.push(() => {
    for (const line of spec) {
      if (line.startsWith('=')) {
        // An embedded struct: inline in JSON unless a key is given (ObjectMeta is "metadata").
        const [tn = '', json] = line.slice(1).split(' ');
        const embeddedName = tn.split('.')[1];
        if (!embeddedName) throw new Error(`go-types: embedded field ${line} of ${name} needs a package-qualified type`);
        t.fields.push({ name: embeddedName, type: parseType(tn), json: json ?? '', embedded: !json });
        continue;
      }
      const [fname, ftype, json] = line.split(' ');
      if (!fname || !ftype) throw new Error(`go-types: field ${JSON.stringify(line)} of ${name} needs a name and a type`);
      t.fields.push({ name: fname, type: parseType(ftype), json: json ?? lowerFirst(fname) });
    }
  });
}
const pending: (() => void)[] = [];

// ---------------------------------------------------------------------------
// pkg/apis/core types.go, v1.32, in Go's field order.

struct('core.PodSpec', [
  'Volumes []core.Volume', 'InitContainers []core.Container', 'Containers []core.Container',
  'EphemeralContainers []core.EphemeralContainer', 'RestartPolicy core.RestartPolicy',
  'TerminationGracePeriodSeconds *int64', 'ActiveDeadlineSeconds *int64', 'DNSPolicy core.DNSPolicy dnsPolicy',
  'NodeSelector map[string]string', 'ServiceAccountName string', 'AutomountServiceAccountToken *bool', 'NodeName string',
  'SecurityContext *core.PodSecurityContext', 'ImagePullSecrets []core.LocalObjectReference', 'Hostname string',
  'Subdomain string', 'SetHostnameAsFQDN *bool setHostnameAsFQDN', 'Affinity *core.Affinity', 'SchedulerName string',
  'Tolerations []core.Toleration', 'HostAliases []core.HostAlias', 'PriorityClassName string', 'Priority *int32',
  'PreemptionPolicy *core.PreemptionPolicy', 'DNSConfig *core.PodDNSConfig dnsConfig', 'ReadinessGates []core.PodReadinessGate',
  'RuntimeClassName *string', 'Overhead core.ResourceList', 'EnableServiceLinks *bool',
  'TopologySpreadConstraints []core.TopologySpreadConstraint', 'OS *core.PodOS os', 'SchedulingGates []core.PodSchedulingGate',
  'ResourceClaims []core.PodResourceClaim', 'Resources *core.ResourceRequirements',
]);
struct('core.PodSecurityContext', [
  'HostNetwork bool', 'HostPID bool hostPID', 'HostIPC bool hostIPC', 'ShareProcessNamespace *bool', 'HostUsers *bool',
  'SELinuxOptions *core.SELinuxOptions seLinuxOptions', 'WindowsOptions *core.WindowsSecurityContextOptions', 'RunAsUser *int64',
  'RunAsGroup *int64', 'RunAsNonRoot *bool', 'SupplementalGroups []int64', 'SupplementalGroupsPolicy *core.SupplementalGroupsPolicy',
  'FSGroup *int64 fsGroup', 'FSGroupChangePolicy *core.PodFSGroupChangePolicy fsGroupChangePolicy', 'Sysctls []core.Sysctl',
  'SeccompProfile *core.SeccompProfile', 'AppArmorProfile *core.AppArmorProfile',
  'SELinuxChangePolicy *core.PodSELinuxChangePolicy seLinuxChangePolicy',
]);
const CONTAINER_FIELDS = [
  'Name string', 'Image string', 'Command []string', 'Args []string', 'WorkingDir string', 'Ports []core.ContainerPort',
  'EnvFrom []core.EnvFromSource', 'Env []core.EnvVar', 'Resources core.ResourceRequirements',
  'ResizePolicy []core.ContainerResizePolicy', 'RestartPolicy *core.ContainerRestartPolicy', 'VolumeMounts []core.VolumeMount',
  'VolumeDevices []core.VolumeDevice', 'LivenessProbe *core.Probe', 'ReadinessProbe *core.Probe', 'StartupProbe *core.Probe',
  'Lifecycle *core.Lifecycle', 'TerminationMessagePath string', 'TerminationMessagePolicy core.TerminationMessagePolicy',
  'ImagePullPolicy core.PullPolicy', 'SecurityContext *core.SecurityContext', 'Stdin bool', 'StdinOnce bool', 'TTY bool tty',
];
struct('core.Container', CONTAINER_FIELDS);
struct('core.EphemeralContainerCommon', CONTAINER_FIELDS);
struct('core.EphemeralContainer', ['=core.EphemeralContainerCommon', 'TargetContainerName string']);
struct('core.ContainerPort', ['Name string', 'HostPort int32', 'ContainerPort int32', 'Protocol core.Protocol', 'HostIP string hostIP']);
struct('core.EnvFromSource', ['Prefix string', 'ConfigMapRef *core.ConfigMapEnvSource', 'SecretRef *core.SecretEnvSource']);
struct('core.ConfigMapEnvSource', ['=core.LocalObjectReference', 'Optional *bool']);
struct('core.SecretEnvSource', ['=core.LocalObjectReference', 'Optional *bool']);
struct('core.LocalObjectReference', ['Name string']);
struct('core.EnvVar', ['Name string', 'Value string', 'ValueFrom *core.EnvVarSource']);
struct('core.EnvVarSource', ['FieldRef *core.ObjectFieldSelector', 'ResourceFieldRef *core.ResourceFieldSelector',
  'ConfigMapKeyRef *core.ConfigMapKeySelector', 'SecretKeyRef *core.SecretKeySelector']);
struct('core.ObjectFieldSelector', ['APIVersion string apiVersion', 'FieldPath string']);
struct('core.ResourceFieldSelector', ['ContainerName string', 'Resource string', 'Divisor resource.Quantity']);
struct('core.ConfigMapKeySelector', ['=core.LocalObjectReference', 'Key string', 'Optional *bool']);
struct('core.SecretKeySelector', ['=core.LocalObjectReference', 'Key string', 'Optional *bool']);
struct('core.ResourceRequirements', ['Limits core.ResourceList', 'Requests core.ResourceList', 'Claims []core.ResourceClaim']);
struct('core.ResourceClaim', ['Name string', 'Request string']);
struct('core.ContainerResizePolicy', ['ResourceName core.ResourceName', 'RestartPolicy core.ResourceResizeRestartPolicy']);
struct('core.VolumeMount', ['Name string', 'ReadOnly bool', 'RecursiveReadOnly *core.RecursiveReadOnlyMode', 'MountPath string',
  'SubPath string', 'MountPropagation *core.MountPropagationMode', 'SubPathExpr string']);
struct('core.VolumeDevice', ['Name string', 'DevicePath string']);
struct('core.Probe', ['=core.ProbeHandler', 'InitialDelaySeconds int32', 'TimeoutSeconds int32', 'PeriodSeconds int32',
  'SuccessThreshold int32', 'FailureThreshold int32', 'TerminationGracePeriodSeconds *int64']);
struct('core.ProbeHandler', ['Exec *core.ExecAction', 'HTTPGet *core.HTTPGetAction httpGet',
  'TCPSocket *core.TCPSocketAction tcpSocket', 'GRPC *core.GRPCAction grpc']);
struct('core.LifecycleHandler', ['Exec *core.ExecAction', 'HTTPGet *core.HTTPGetAction httpGet',
  'TCPSocket *core.TCPSocketAction tcpSocket', 'Sleep *core.SleepAction']);
struct('core.Lifecycle', ['PostStart *core.LifecycleHandler', 'PreStop *core.LifecycleHandler']);
struct('core.ExecAction', ['Command []string']);
struct('core.HTTPGetAction', ['Path string', 'Port intstr.IntOrString', 'Host string', 'Scheme core.URIScheme',
  'HTTPHeaders []core.HTTPHeader httpHeaders']);
struct('core.HTTPHeader', ['Name string', 'Value string']);
struct('core.TCPSocketAction', ['Port intstr.IntOrString', 'Host string']);
struct('core.GRPCAction', ['Port int32', 'Service *string']);
struct('core.SleepAction', ['Seconds int64']);
struct('intstr.IntOrString', ['Type intstr.Type', 'IntVal int32', 'StrVal string']);
struct('core.SecurityContext', ['Capabilities *core.Capabilities', 'Privileged *bool',
  'SELinuxOptions *core.SELinuxOptions seLinuxOptions', 'WindowsOptions *core.WindowsSecurityContextOptions', 'RunAsUser *int64',
  'RunAsGroup *int64', 'RunAsNonRoot *bool', 'ReadOnlyRootFilesystem *bool', 'AllowPrivilegeEscalation *bool',
  'ProcMount *core.ProcMountType', 'SeccompProfile *core.SeccompProfile', 'AppArmorProfile *core.AppArmorProfile']);
struct('core.Capabilities', ['Add []core.Capability', 'Drop []core.Capability']);
struct('core.SELinuxOptions', ['User string', 'Role string', 'Type string', 'Level string']);
struct('core.WindowsSecurityContextOptions', ['GMSACredentialSpecName *string gmsaCredentialSpecName',
  'GMSACredentialSpec *string gmsaCredentialSpec', 'RunAsUserName *string', 'HostProcess *bool']);
struct('core.SeccompProfile', ['Type core.SeccompProfileType', 'LocalhostProfile *string']);
struct('core.AppArmorProfile', ['Type core.AppArmorProfileType', 'LocalhostProfile *string']);
struct('core.Sysctl', ['Name string', 'Value string']);
struct('core.Affinity', ['NodeAffinity *core.NodeAffinity', 'PodAffinity *core.PodAffinity', 'PodAntiAffinity *core.PodAntiAffinity']);
struct('core.NodeAffinity', ['RequiredDuringSchedulingIgnoredDuringExecution *core.NodeSelector',
  'PreferredDuringSchedulingIgnoredDuringExecution []core.PreferredSchedulingTerm']);
struct('core.NodeSelector', ['NodeSelectorTerms []core.NodeSelectorTerm']);
struct('core.NodeSelectorTerm', ['MatchExpressions []core.NodeSelectorRequirement', 'MatchFields []core.NodeSelectorRequirement']);
struct('core.NodeSelectorRequirement', ['Key string', 'Operator core.NodeSelectorOperator', 'Values []string']);
struct('core.PreferredSchedulingTerm', ['Weight int32', 'Preference core.NodeSelectorTerm']);
struct('core.PodAffinity', ['RequiredDuringSchedulingIgnoredDuringExecution []core.PodAffinityTerm',
  'PreferredDuringSchedulingIgnoredDuringExecution []core.WeightedPodAffinityTerm']);
struct('core.PodAntiAffinity', ['RequiredDuringSchedulingIgnoredDuringExecution []core.PodAffinityTerm',
  'PreferredDuringSchedulingIgnoredDuringExecution []core.WeightedPodAffinityTerm']);
struct('core.PodAffinityTerm', ['LabelSelector *v1.LabelSelector', 'Namespaces []string', 'TopologyKey string',
  'NamespaceSelector *v1.LabelSelector', 'MatchLabelKeys []string', 'MismatchLabelKeys []string']);
struct('core.WeightedPodAffinityTerm', ['Weight int32', 'PodAffinityTerm core.PodAffinityTerm']);
struct('v1.LabelSelector', ['MatchLabels map[string]string', 'MatchExpressions []v1.LabelSelectorRequirement']);
struct('v1.LabelSelectorRequirement', ['Key string', 'Operator v1.LabelSelectorOperator', 'Values []string']);
struct('core.Toleration', ['Key string', 'Operator core.TolerationOperator', 'Value string', 'Effect core.TaintEffect',
  'TolerationSeconds *int64']);
struct('core.HostAlias', ['IP string ip', 'Hostnames []string']);
struct('core.PodDNSConfig', ['Nameservers []string', 'Searches []string', 'Options []core.PodDNSConfigOption']);
struct('core.PodDNSConfigOption', ['Name string', 'Value *string']);
struct('core.PodReadinessGate', ['ConditionType core.PodConditionType']);
struct('core.TopologySpreadConstraint', ['MaxSkew int32', 'TopologyKey string', 'WhenUnsatisfiable core.UnsatisfiableConstraintAction',
  'LabelSelector *v1.LabelSelector', 'MinDomains *int32', 'NodeAffinityPolicy *core.NodeInclusionPolicy',
  'NodeTaintsPolicy *core.NodeInclusionPolicy', 'MatchLabelKeys []string']);
struct('core.PodOS', ['Name core.OSName']);
struct('core.PodSchedulingGate', ['Name string']);
struct('core.PodResourceClaim', ['Name string', 'ResourceClaimName *string', 'ResourceClaimTemplateName *string']);
struct('core.Volume', ['Name string', '=core.VolumeSource']);
struct('core.VolumeSource', [
  'HostPath *core.HostPathVolumeSource', 'EmptyDir *core.EmptyDirVolumeSource',
  'GCEPersistentDisk *core.GCEPersistentDiskVolumeSource gcePersistentDisk',
  'AWSElasticBlockStore *core.AWSElasticBlockStoreVolumeSource awsElasticBlockStore', 'GitRepo *core.GitRepoVolumeSource',
  'Secret *core.SecretVolumeSource', 'NFS *core.NFSVolumeSource nfs', 'ISCSI *core.ISCSIVolumeSource iscsi',
  'Glusterfs *core.GlusterfsVolumeSource', 'PersistentVolumeClaim *core.PersistentVolumeClaimVolumeSource',
  'RBD *core.RBDVolumeSource rbd', 'Quobyte *core.QuobyteVolumeSource', 'FlexVolume *core.FlexVolumeSource',
  'Cinder *core.CinderVolumeSource', 'CephFS *core.CephFSVolumeSource cephfs', 'Flocker *core.FlockerVolumeSource',
  'DownwardAPI *core.DownwardAPIVolumeSource downwardAPI', 'FC *core.FCVolumeSource fc', 'AzureFile *core.AzureFileVolumeSource',
  'ConfigMap *core.ConfigMapVolumeSource', 'VsphereVolume *core.VsphereVirtualDiskVolumeSource',
  'AzureDisk *core.AzureDiskVolumeSource', 'PhotonPersistentDisk *core.PhotonPersistentDiskVolumeSource',
  'Projected *core.ProjectedVolumeSource', 'PortworxVolume *core.PortworxVolumeSource', 'ScaleIO *core.ScaleIOVolumeSource scaleIO',
  'StorageOS *core.StorageOSVolumeSource storageos', 'CSI *core.CSIVolumeSource csi', 'Ephemeral *core.EphemeralVolumeSource',
  'Image *core.ImageVolumeSource',
]);
struct('core.HostPathVolumeSource', ['Path string', 'Type *core.HostPathType']);
struct('core.EmptyDirVolumeSource', ['Medium core.StorageMedium', 'SizeLimit *resource.Quantity']);
struct('core.GCEPersistentDiskVolumeSource', ['PDName string pdName', 'FSType string fsType', 'Partition int32', 'ReadOnly bool']);
struct('core.AWSElasticBlockStoreVolumeSource', ['VolumeID string volumeID', 'FSType string fsType', 'Partition int32', 'ReadOnly bool']);
struct('core.GitRepoVolumeSource', ['Repository string', 'Revision string', 'Directory string']);
struct('core.SecretVolumeSource', ['SecretName string', 'Items []core.KeyToPath', 'DefaultMode *int32', 'Optional *bool']);
struct('core.KeyToPath', ['Key string', 'Path string', 'Mode *int32']);
struct('core.NFSVolumeSource', ['Server string', 'Path string', 'ReadOnly bool']);
struct('core.ISCSIVolumeSource', ['TargetPortal string', 'IQN string iqn', 'Lun int32', 'ISCSIInterface string iscsiInterface',
  'FSType string fsType', 'ReadOnly bool', 'Portals []string', 'DiscoveryCHAPAuth bool chapAuthDiscovery',
  'SessionCHAPAuth bool chapAuthSession', 'SecretRef *core.LocalObjectReference', 'InitiatorName *string']);
struct('core.GlusterfsVolumeSource', ['EndpointsName string endpoints', 'Path string', 'ReadOnly bool']);
struct('core.PersistentVolumeClaimVolumeSource', ['ClaimName string', 'ReadOnly bool']);
struct('core.RBDVolumeSource', ['CephMonitors []string monitors', 'RBDImage string image', 'FSType string fsType',
  'RBDPool string pool', 'RadosUser string user', 'Keyring string', 'SecretRef *core.LocalObjectReference', 'ReadOnly bool']);
struct('core.QuobyteVolumeSource', ['Registry string', 'Volume string', 'ReadOnly bool', 'User string', 'Group string', 'Tenant string']);
struct('core.FlexVolumeSource', ['Driver string', 'FSType string fsType', 'SecretRef *core.LocalObjectReference', 'ReadOnly bool',
  'Options map[string]string']);
struct('core.CinderVolumeSource', ['VolumeID string volumeID', 'FSType string fsType', 'ReadOnly bool',
  'SecretRef *core.LocalObjectReference']);
struct('core.CephFSVolumeSource', ['Monitors []string', 'Path string', 'User string', 'SecretFile string',
  'SecretRef *core.LocalObjectReference', 'ReadOnly bool']);
struct('core.FlockerVolumeSource', ['DatasetName string', 'DatasetUUID string']);
struct('core.DownwardAPIVolumeSource', ['Items []core.DownwardAPIVolumeFile', 'DefaultMode *int32']);
struct('core.DownwardAPIVolumeFile', ['Path string', 'FieldRef *core.ObjectFieldSelector',
  'ResourceFieldRef *core.ResourceFieldSelector', 'Mode *int32']);
struct('core.FCVolumeSource', ['TargetWWNs []string', 'Lun *int32', 'FSType string fsType', 'ReadOnly bool', 'WWIDs []string wwids']);
struct('core.AzureFileVolumeSource', ['SecretName string', 'ShareName string', 'ReadOnly bool']);
struct('core.ConfigMapVolumeSource', ['=core.LocalObjectReference', 'Items []core.KeyToPath', 'DefaultMode *int32', 'Optional *bool']);
struct('core.VsphereVirtualDiskVolumeSource', ['VolumePath string', 'FSType string fsType', 'StoragePolicyName string',
  'StoragePolicyID string storagePolicyID']);
struct('core.AzureDiskVolumeSource', ['DiskName string', 'DataDiskURI string diskURI', 'CachingMode *core.AzureDataDiskCachingMode',
  'FSType *string fsType', 'ReadOnly *bool', 'Kind *core.AzureDataDiskKind']);
struct('core.PhotonPersistentDiskVolumeSource', ['PdID string pdID', 'FSType string fsType']);
struct('core.ProjectedVolumeSource', ['Sources []core.VolumeProjection', 'DefaultMode *int32']);
struct('core.VolumeProjection', ['Secret *core.SecretProjection', 'DownwardAPI *core.DownwardAPIProjection downwardAPI',
  'ConfigMap *core.ConfigMapProjection', 'ServiceAccountToken *core.ServiceAccountTokenProjection',
  'ClusterTrustBundle *core.ClusterTrustBundleProjection']);
struct('core.SecretProjection', ['=core.LocalObjectReference', 'Items []core.KeyToPath', 'Optional *bool']);
struct('core.ConfigMapProjection', ['=core.LocalObjectReference', 'Items []core.KeyToPath', 'Optional *bool']);
struct('core.DownwardAPIProjection', ['Items []core.DownwardAPIVolumeFile']);
struct('core.ServiceAccountTokenProjection', ['Audience string', 'ExpirationSeconds int64', 'Path string']);
struct('core.ClusterTrustBundleProjection', ['Name *string', 'SignerName *string', 'LabelSelector *v1.LabelSelector',
  'Optional *bool', 'Path string']);
struct('core.PortworxVolumeSource', ['VolumeID string volumeID', 'FSType string fsType', 'ReadOnly bool']);
struct('core.ScaleIOVolumeSource', ['Gateway string', 'System string', 'SecretRef *core.LocalObjectReference',
  'SSLEnabled bool sslEnabled', 'ProtectionDomain string', 'StoragePool string', 'StorageMode string', 'VolumeName string',
  'FSType string fsType', 'ReadOnly bool']);
struct('core.StorageOSVolumeSource', ['VolumeName string', 'VolumeNamespace string', 'FSType string fsType', 'ReadOnly bool',
  'SecretRef *core.LocalObjectReference']);
struct('core.CSIVolumeSource', ['Driver string', 'ReadOnly *bool', 'FSType *string fsType', 'VolumeAttributes map[string]string',
  'NodePublishSecretRef *core.LocalObjectReference']);
struct('core.EphemeralVolumeSource', ['VolumeClaimTemplate *core.PersistentVolumeClaimTemplate']);
struct('core.PersistentVolumeClaimTemplate', ['=v1.ObjectMeta metadata', 'Spec core.PersistentVolumeClaimSpec']);
struct('v1.ObjectMeta', ['Name string', 'GenerateName string', 'Namespace string', 'SelfLink string', 'UID string uid',
  'ResourceVersion string', 'Generation int64', 'Labels map[string]string', 'Annotations map[string]string', 'Finalizers []string']);
struct('core.PersistentVolumeClaimSpec', ['AccessModes []core.PersistentVolumeAccessMode', 'Selector *v1.LabelSelector',
  'Resources core.VolumeResourceRequirements', 'VolumeName string', 'StorageClassName *string',
  'VolumeMode *core.PersistentVolumeMode', 'DataSource *core.TypedLocalObjectReference',
  'DataSourceRef *core.TypedObjectReference', 'VolumeAttributesClassName *string']);
struct('core.VolumeResourceRequirements', ['Limits core.ResourceList', 'Requests core.ResourceList']);
struct('core.TypedLocalObjectReference', ['APIGroup *string apiGroup', 'Kind string', 'Name string']);
struct('core.TypedObjectReference', ['APIGroup *string apiGroup', 'Kind string', 'Name string', 'Namespace *string']);
struct('core.ImageVolumeSource', ['Reference string', 'PullPolicy core.PullPolicy']);

for (const f of pending.splice(0)) f();

/** metav1.LabelSelector's protobuf String() (pointer receiver): what a *LabelSelector prints as a fmt.Stringer. */
STRUCTS.get('v1.LabelSelector')!.stringerPtr = (v) => {
  const ml = isMap(v.MatchLabels) ? v.MatchLabels.entries : [];
  const labels = ml.map(([k, x]) => `${k}: ${x as string},`).join('');
  const exprs = ((v.MatchExpressions as GoStruct[] | null) ?? []).map((e) => {
    const vals = `[${((e.Values as string[] | null) ?? []).join(' ')}]`;
    return `LabelSelectorRequirement{Key:${e.Key as string},Operator:${e.Operator as string},Values:${vals},},`;
  }).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
};

export const goType = (name: string): GoType => parseType(name);

// ---------------------------------------------------------------------------
// Type names as reflect.Type.String() prints them.

export function typeString(t: GoType): string {
  switch (t.kind) {
    case 'ptr': return `*${typeString(t.elem)}`;
    case 'slice': return t.name ?? `[]${typeString(t.elem)}`;
    case 'map': return t.name ?? `map[${typeString(t.key)}]${typeString(t.elem)}`;
    case 'struct': return t.name;
    case 'quantity': return 'resource.Quantity';
    default: return t.name ?? t.kind;
  }
}

/** reflect.Type.Name() is non-empty (a named type). */
export function isNamed(t: GoType): boolean {
  switch (t.kind) {
    case 'ptr': return false;
    case 'slice': case 'map': return !!t.name;
    default: return true;
  }
}

// ---------------------------------------------------------------------------
// v1 JSON -> Go values.

export interface ConvertOptions {
  /** Empty JSON lists and maps decode to nil (what a value read back from storage holds). */
  emptyAsNil?: boolean;
}

/**
 * A field of a converted struct. convert() and zeroValue() set every declared
 * field, so the zero value stands in only for a struct built some other way.
 */
export function structField(s: GoStruct, f: GoField): GoValue {
  const v = s[f.name];
  return v === undefined ? zeroValue(f.type) : v;
}

export function zeroValue(t: GoType): GoValue {
  switch (t.kind) {
    case 'bool': return false;
    case 'string': return '';
    case 'int': case 'int32': case 'int64': return 0;
    case 'struct': {
      const out: GoStruct = {};
      for (const f of t.fields) out[f.name] = zeroValue(f.type);
      return out;
    }
    case 'quantity': return { q: undefined, text: '' };
    default: return null;
  }
}

function quantityValue(v: unknown): GoQuantity {
  if (typeof v !== 'string' && typeof v !== 'number') return { q: undefined, text: '' };
  try { return { q: parseQuantity(v), text: String(v) }; } catch (e) {
    if (e instanceof DecodeError) return { q: undefined, text: String(v) };
    throw e;
  }
}

const jsonObj = (v: unknown): Record<string, unknown> =>
  (typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : {});

export function convert(t: GoType, v: unknown, opts: ConvertOptions = {}): GoValue {
  if (v === undefined || v === null) return zeroValue(t);
  switch (t.kind) {
    case 'bool': return v === true;
    case 'string': return typeof v === 'string' ? v : String(v);
    case 'int': case 'int32': case 'int64': return typeof v === 'number' ? v : Number(v) || 0;
    case 'quantity': return quantityValue(v);
    case 'ptr': return convert(t.elem, v, opts);
    case 'slice': {
      if (!Array.isArray(v)) return null;
      if (opts.emptyAsNil && v.length === 0) return null;
      return v.map((x) => convert(t.elem, x, opts));
    }
    case 'map': {
      const o = jsonObj(v);
      const keys = Object.keys(o);
      if (opts.emptyAsNil && keys.length === 0) return null;
      return { entries: keys.sort(goStringCompare).map((k) => [k, convert(t.elem, o[k], opts)] as [string, GoValue]) };
    }
    case 'struct': {
      if (t.name === 'intstr.IntOrString') {
        return typeof v === 'string' ? { Type: 1, IntVal: 0, StrVal: v } : { Type: 0, IntVal: Number(v) || 0, StrVal: '' };
      }
      const o = jsonObj(v);
      const out: GoStruct = {};
      for (const f of t.fields) out[f.name] = f.embedded ? convert(f.type, o, opts) : convert(f.type, o[f.json], opts);
      return out;
    }
  }
}

/** Go compares strings bytewise. */
export function goStringCompare(a: string, b: string): number {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return Buffer.compare(x, y);
}

/**
 * A v1 PodSpec as the internal core.PodSpec: serviceAccount is the
 * deprecated alias of serviceAccountName, and the host namespace fields
 * and shareProcessNamespace/hostUsers move into a securityContext that
 * always exists (Convert_v1_PodSpec_To_core_PodSpec).
 */
export function internalPodSpec(spec: unknown, opts: ConvertOptions = {}): GoStruct {
  const s = jsonObj(spec);
  const out = convert(goType('core.PodSpec'), s, opts) as GoStruct;
  if (!s.serviceAccountName && typeof s.serviceAccount === 'string') out.ServiceAccountName = s.serviceAccount;
  const sc = (out.SecurityContext as GoStruct | null) ?? (zeroValue(goType('core.PodSecurityContext')) as GoStruct);
  sc.HostNetwork = s.hostNetwork === true;
  sc.HostPID = s.hostPID === true;
  sc.HostIPC = s.hostIPC === true;
  sc.ShareProcessNamespace = typeof s.shareProcessNamespace === 'boolean' ? s.shareProcessNamespace : null;
  sc.HostUsers = typeof s.hostUsers === 'boolean' ? s.hostUsers : null;
  out.SecurityContext = sc;
  return out;
}

// ---------------------------------------------------------------------------
// Quantities as Go holds them (resource.Quantity's unexported fields).

const MAX_INT64 = (1n << 63n) - 1n;

/** The int64Amount a quantity is stored in, or undefined when it needs an inf.Dec. */
export function int64Amount(q: Quantity): { value: bigint; scale: number } | undefined {
  if (q.unscaled > MAX_INT64 || q.scale < -9) return undefined;
  return { value: (q.neg ? -1n : 1n) * q.unscaled, scale: q.scale };
}

/** %#v of a resource.Quantity. */
export function quantityGoSyntax(gq: GoQuantity | Quantity | undefined): string {
  const q = gq && 'text' in gq ? gq.q : gq;
  if (!q) return 'resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:""}';
  const i = int64Amount(q);
  const iText = i ? `resource.int64Amount{value:${i.value}, scale:${i.scale}}` : 'resource.int64Amount{value:0, scale:0}';
  const dText = i ? 'resource.infDecAmount{Dec:(*inf.Dec)(nil)}' : 'resource.infDecAmount{Dec:(*inf.Dec)(0xc000000000)}';
  const cached = q.s ?? '';
  return `resource.Quantity{i:${iText}, d:${dText}, s:${goQuote(cached)}, Format:${goQuote(q.format)}}`;
}

// ---------------------------------------------------------------------------
// %#v (fmt's Go-syntax representation).

const PTR = '0xc000000000';

/** fmt %#v of a Go value of type t. Pointers inside are printed as (*T)(0xc...) as Go would (addresses vary). */
export function goSharpV(t: GoType, v: GoValue, top = true): string {
  switch (t.kind) {
    case 'bool': return String(v === true);
    case 'int': case 'int32': case 'int64': return String(v ?? 0);
    case 'string': return goQuote(typeof v === 'string' ? v : '');
    case 'quantity': return quantityGoSyntax(v as GoQuantity);
    case 'ptr':
      if (v === null) return `(${typeString(t)})(nil)`;
      return top ? `&${goSharpV(t.elem, v, true)}` : `(${typeString(t)})(${PTR})`;
    case 'slice': {
      if (v === null) return `${typeString(t)}(nil)`;
      return `${typeString(t)}{${(v as GoValue[]).map((x) => goSharpV(t.elem, x, false)).join(', ')}}`;
    }
    case 'map': {
      if (v === null) return `${typeString(t)}(nil)`;
      return `${typeString(t)}{${(v as GoMap).entries.map(([k, x]) => `${goSharpV(t.key, k, false)}:${goSharpV(t.elem, x, false)}`).join(', ')}}`;
    }
    case 'struct': {
      const s = v as GoStruct;
      return `${t.name}{${t.fields.map((f) => `${f.name}:${goSharpV(f.type, structField(s, f), false)}`).join(', ')}}`;
    }
  }
}

/** %#v of a v1 JSON value converted to the named internal type. */
export function goSyntaxOf(typeName: string, json: unknown): string {
  const t = goType(typeName);
  return goSharpV(t, convert(t, json));
}
