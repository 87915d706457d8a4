/**
 * What `winkube doctor` reads and reports: a snapshot of the cluster as the
 * API lists it (nothing else: it runs on any conformant cluster), and
 * findings that carry their evidence and the troubleshooting guide's
 * explanation and fix.
 */
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Event, Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { RuntimeClass } from 'kubernetes-types/node/v1.js';
import type { ObjectRef, Severity } from '../lint/types.js';

export type { ObjectRef, Severity };

/** Everything the checks read, listed once. */
export interface ClusterSnapshot {
  /** The API server's `/version` gitVersion (`v1.32.0`); undefined when it did not answer. */
  serverVersion?: string;
  nodes: Node[];
  pods: Pod[];
  /** core/v1 Events of every namespace. */
  events: Event[];
  daemonSets: DaemonSet[];
  services: Service[];
  runtimeClasses: RuntimeClass[];
}

export interface DoctorFinding {
  /** The check's id (kebab-case, says what it finds). */
  check: string;
  severity: Severity;
  object: ObjectRef;
  /** What in the cluster shows it: a field and its value, or an event's text. */
  evidence: string[];
  /** One line: what is wrong. */
  message: string;
  /** Why, in the troubleshooting guide's words where it has them. */
  explanation: string;
  fix: string;
  /** The documentation page the explanation comes from. */
  reference: string;
}

export interface Check {
  id: string;
  /** One line: what the check looks for. */
  title: string;
  run(cluster: ClusterSnapshot): DoctorFinding[];
}
