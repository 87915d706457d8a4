/**
 * framework.PodInfo: what the plugins read of a pod, parsed once when the pod
 * is seen rather than on every node the pod is checked against.
 */
import { fromLabelSelector, type LabelSelector } from '../selectors/labels.js';
import { podRequests, type Resources } from './resources.js';

export interface AffinityTerm {
  namespaces: Set<string>;
  /** undefined: no namespaceSelector (matches no namespace by selector). */
  namespaceSelector?: LabelSelector;
  /** undefined: no labelSelector, which selects nothing. */
  selector?: LabelSelector;
  topologyKey: string;
}
export interface WeightedAffinityTerm extends AffinityTerm { weight: number }

export interface HostPort { ip: string; protocol: string; port: number }

/** The namespace labels a namespaceSelector is matched against. */
export type NamespaceLabels = (namespace: string) => Record<string, string> | undefined;

function affinityTerm(podNamespace: string, t: any): AffinityTerm {
  const namespaces = new Set<string>(Array.isArray(t?.namespaces) ? t.namespaces : []);
  // getNamespacesFromPodAffinityTerm: no namespaces and no namespaceSelector means the pod's own namespace.
  if (namespaces.size === 0 && t?.namespaceSelector == null) namespaces.add(podNamespace);
  return {
    namespaces,
    namespaceSelector: t?.namespaceSelector == null ? undefined : fromLabelSelector(t.namespaceSelector),
    selector: t?.labelSelector == null ? undefined : fromLabelSelector(t.labelSelector),
    topologyKey: t?.topologyKey ?? '',
  };
}

/** AffinityTerm.Matches: the pod is in one of the term's namespaces and matches its selector. */
export function termMatches(term: AffinityTerm, pod: PodInfo, nsLabels: NamespaceLabels): boolean {
  if (!term.selector) return false;
  if (!term.namespaces.has(pod.namespace)) {
    if (!term.namespaceSelector) return false;
    if (!term.namespaceSelector.matches(nsLabels(pod.namespace) ?? {})) return false;
  }
  return term.selector.matches(pod.labels);
}

/** normalizedImageName: an image without tag or digest is `:latest` (ImageLocality). */
export function normalizedImageName(name: string): string {
  if (name.lastIndexOf(':') <= name.lastIndexOf('/')) return name + ':latest';
  return name;
}

export class PodInfo {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly priority: number;
  /** Requests with overhead (what NodeResourcesFit compares to allocatable). */
  readonly requests: Resources;
  /** Requests with the non-zero defaults (what LeastAllocated scores and the node's NonZeroRequested adds). */
  readonly nonZero: Resources;
  readonly hostPorts: HostPort[];
  readonly requiredAffinity: AffinityTerm[];
  readonly requiredAntiAffinity: AffinityTerm[];
  readonly preferredAffinity: WeightedAffinityTerm[];
  readonly preferredAntiAffinity: WeightedAffinityTerm[];
  readonly tolerations: any[];
  /** When the scheduler first saw it (queue order among equal priorities). */
  timestamp = 0;
  attempts = 0;
  unschedulablePlugins = new Set<string>();

  constructor(readonly pod: any) {
    const m = pod.metadata ?? {};
    const spec = pod.spec ?? {};
    this.uid = m.uid ?? `${m.namespace}/${m.name}`;
    this.namespace = m.namespace ?? '';
    this.name = m.name ?? '';
    this.labels = m.labels ?? {};
    this.priority = typeof spec.priority === 'number' ? spec.priority : 0;
    this.requests = podRequests(pod, false);
    this.nonZero = podRequests(pod, true);
    this.hostPorts = [];
    for (const c of spec.containers ?? []) {
      for (const p of c?.ports ?? []) {
        if (p?.hostPort > 0) this.hostPorts.push({ ip: p.hostIP || '0.0.0.0', protocol: p.protocol || 'TCP', port: p.hostPort });
      }
    }
    const a = spec.affinity ?? {};
    const ns = this.namespace;
    this.requiredAffinity = (a.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t: any) => affinityTerm(ns, t));
    this.requiredAntiAffinity = (a.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t: any) => affinityTerm(ns, t));
    const weighted = (l: any[] | undefined) => (l ?? []).map((w: any) => ({ ...affinityTerm(ns, w?.podAffinityTerm), weight: Number(w?.weight ?? 0) }));
    this.preferredAffinity = weighted(a.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.preferredAntiAffinity = weighted(a.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    this.tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
  }

  get nodeName(): string | undefined { return this.pod.spec?.nodeName || undefined; }
  get terminating(): boolean { return !!this.pod.metadata?.deletionTimestamp; }
  get hasAffinity(): boolean {
    return this.requiredAffinity.length > 0 || this.requiredAntiAffinity.length > 0 ||
      this.preferredAffinity.length > 0 || this.preferredAntiAffinity.length > 0;
  }
}
