/**
 * kube-controller-manager's `--controllers` flag (v1.32,
 * cmd/kube-controller-manager/app/options/generic.go and
 * controllermanager.go): a list of names where `*` turns on every
 * controller that is on by default, `name` turns one on and `-name` off;
 * the first entry naming a controller decides for it. Aliases (the names
 * before v1.28) are mapped to the canonical names first, and a name no
 * controller has is an error.
 */

/** Every controller name of kube-controller-manager v1.32 (cmd/kube-controller-manager/names), with its aliases. */
export const KNOWN_CONTROLLERS: Readonly<Record<string, readonly string[]>> = {
  'serviceaccount-token-controller': ['serviceaccount-token'],
  'endpoints-controller': ['endpoint'],
  'endpointslice-controller': ['endpointslice'],
  'endpointslice-mirroring-controller': ['endpointslicemirroring'],
  'replicationcontroller-controller': ['replicationcontroller'],
  'pod-garbage-collector-controller': ['podgc'],
  'resourcequota-controller': ['resourcequota'],
  'namespace-controller': ['namespace'],
  'serviceaccount-controller': ['serviceaccount'],
  'garbage-collector-controller': ['garbagecollector'],
  'daemonset-controller': ['daemonset'],
  'job-controller': ['job'],
  'deployment-controller': ['deployment'],
  'replicaset-controller': ['replicaset'],
  'horizontal-pod-autoscaler-controller': ['horizontalpodautoscaling'],
  'disruption-controller': ['disruption'],
  'statefulset-controller': ['statefulset'],
  'cronjob-controller': ['cronjob'],
  'certificatesigningrequest-signing-controller': ['csrsigning'],
  'certificatesigningrequest-approving-controller': ['csrapproving'],
  'certificatesigningrequest-cleaner-controller': ['csrcleaner'],
  'ttl-controller': ['ttl'],
  'bootstrap-signer-controller': ['bootstrapsigner'],
  'token-cleaner-controller': ['tokencleaner'],
  'node-ipam-controller': ['nodeipam'],
  'node-lifecycle-controller': ['nodelifecycle'],
  'taint-eviction-controller': [],
  'service-lb-controller': ['service'],
  'node-route-controller': ['route'],
  'cloud-node-lifecycle-controller': ['cloud-node-lifecycle'],
  'persistentvolume-binder-controller': ['persistentvolume-binder'],
  'persistentvolume-attach-detach-controller': ['attachdetach'],
  'persistentvolume-expander-controller': ['persistentvolume-expander'],
  'clusterrole-aggregation-controller': ['clusterrole-aggregation'],
  'persistentvolumeclaim-protection-controller': ['pvc-protection'],
  'persistentvolume-protection-controller': ['pv-protection'],
  'ttl-after-finished-controller': ['ttl-after-finished'],
  'root-ca-certificate-publisher-controller': ['root-ca-cert-publisher'],
  'ephemeral-volume-controller': ['ephemeral-volume'],
  'storageversion-garbage-collector-controller': ['storage-version-gc'],
  'resourceclaim-controller': ['resource-claim-controller'],
  'legacy-serviceaccount-token-cleaner-controller': ['legacy-serviceaccount-token-cleaner'],
  'validatingadmissionpolicy-status-controller': [],
  'service-cidr-controller': [],
  'storage-version-migrator-controller': [],
  'selinux-warning-controller': [],
};

/** ControllerDescriptor.isDisabledByDefault in v1.32. */
export const DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set(['bootstrap-signer-controller', 'token-cleaner-controller', 'selinux-warning-controller']);

/** The flag's default: every controller on by default. */
export const DEFAULT_CONTROLLERS: readonly string[] = ['*'];

const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(KNOWN_CONTROLLERS).flatMap(([name, aliases]) => aliases.map((a) => [a, name] as const)));

export interface ControllerSelection {
  /** The entries with aliases resolved (componentconfig's Generic.Controllers). */
  readonly controllers: readonly string[];
  enabled(name: string): boolean;
}

/**
 * Validates and resolves the flag's entries (one flag value may hold
 * several, comma-separated, as pflag's StringSlice reads them), with the
 * names a winkube server has besides kube-controller-manager's (`extra`).
 * Throws the error upstream's Validate reports for an unknown name.
 */
export function parseControllers(values: readonly string[], extra: readonly string[] = []): ControllerSelection {
  const entries = values.flatMap((v) => v.split(','));
  const known = new Set([...Object.keys(KNOWN_CONTROLLERS), ...extra]);
  const errors: string[] = [];
  const controllers = entries.map((entry) => {
    if (entry === '*') return entry;
    const bare = entry.startsWith('-') ? entry.slice(1) : entry;
    const name = ALIASES.get(bare) ?? bare;
    if (!known.has(name)) errors.push(`${JSON.stringify(bare)} is not in the list of known controllers`);
    return entry.startsWith('-') ? `-${name}` : name;
  });
  if (errors.length) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return { controllers, enabled: (name) => isControllerEnabled(name, controllers) };
}

/** IsControllerEnabled: the first entry naming the controller decides; else `*` turns on what is on by default. */
export function isControllerEnabled(name: string, controllers: readonly string[]): boolean {
  let hasStar = false;
  for (const c of controllers) {
    if (c === name) return true;
    if (c === `-${name}`) return false;
    if (c === '*') hasStar = true;
  }
  return hasStar && !DISABLED_BY_DEFAULT.has(name);
}
