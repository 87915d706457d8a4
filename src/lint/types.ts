/**
 * The shapes `winkube lint` works with: manifests with where they came from,
 * the cluster they are checked against, rules and their findings. Rules are
 * pure functions of (manifest, context) so the admission webhook and
 * `doctor` can run the same ones.
 */
import type { Node, Taint } from 'kubernetes-types/core/v1.js';

export type Severity = 'error' | 'warning' | 'info';
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 3, warning: 2, info: 1 };

/**
 * A manifest's JSON as parsed. Manifests are untyped input (any kind, any
 * shape, fields of the wrong type), so rules read them as src/os's rules
 * read pod specs: optional chaining over JSON, every value checked before use.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped input, see above
export type Obj = Record<string, any>;

/** Where a document starts: the file (`-` for stdin), its 1-based line, and Helm's `# Source:` template when present. */
export interface Source {
  file: string;
  line: number;
  helmSource?: string;
}

export interface Manifest {
  obj: Obj;
  source: Source;
  /**
   * The API server's defaults are already applied (an object under admission): a field at its default value
   * may not have been written by the user, so rules about what the user asked for leave it alone.
   */
  defaulted?: boolean;
}

export interface ObjectRef { apiVersion?: string; kind: string; namespace?: string; name: string }

export interface Finding {
  rule: string;
  severity: Severity;
  object: ObjectRef;
  /** Field path in the object, as the API server names fields (`spec.template.spec.containers[0].image`). */
  path: string;
  message: string;
  fix: string;
  source: Source;
}

/** One node of the cluster, as the rules need it (all derived from the Node object). */
export interface ClusterNode {
  name: string;
  os: 'linux' | 'windows';
  /** Windows build (node.kubernetes.io/windows-build or the kernel version). */
  build?: number;
  /** The container runtime from status.nodeInfo.containerRuntimeVersion (`containerd`, `docker`, ...). */
  runtime: string;
  taints: Taint[];
  node: Node;
}

export interface ClusterNetworkFacts {
  mode: 'overlay' | 'l2bridge';
  /** kube-proxy's --enable-dsr on the Windows nodes. */
  dsr: boolean;
}

/** What the manifests are checked against. Unknown facts (a live cluster's network mode) are absent, and their rules stay quiet. */
export interface ClusterDescription {
  /** How the description was obtained, for the report (`default cluster`, a file, a server URL). */
  origin: string;
  nodes: ClusterNode[];
  network?: ClusterNetworkFacts;
  /** Whether sig-windows' GMSA admission webhook runs; undefined when unknown. */
  gmsaWebhook?: boolean;
}

/** What a rule sees besides its object: the cluster and every manifest linted with it. */
export interface RuleContext {
  cluster: ClusterDescription;
  manifests: readonly Manifest[];
}

/** A rule's answer for one object: the engine adds the rule, object and source. */
export interface Hit {
  path: string;
  message: string;
  fix: string;
  /** When the rule's default severity does not fit this case (a DaemonSet is certain to land, a Deployment may). */
  severity?: Severity;
}

export interface Rule {
  id: string;
  severity: Severity;
  /** One line: what the rule finds. */
  title: string;
  /** Why it matters and where it comes from (SARIF help text). */
  help: string;
  check(m: Manifest, ctx: RuleContext): Hit[];
}
