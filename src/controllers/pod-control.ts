/**
 * controller.RealPodControl: how every workload controller creates and
 * deletes its pods, with the events upstream writes for each (Normal
 * SuccessfulCreate "Created pod: x", Warning FailedCreate "Error creating:
 * <error>", SuccessfulDelete / FailedDelete).
 */
import { StatusError } from '../apimachinery/errors.js';
import type { ResourceClient } from '../client/types.js';
import { referenceTo, type EventRecorder } from '../events/recorder.js';
import { isDNS1123Subdomain } from '../meta/names.js';
import type { KObject } from '../apimachinery/object.js';

/** The field manager of the pods a controller creates: the controller manager's (its user agent). */
const FIELD_MANAGER = 'kube-controller-manager';

/** metav1.OwnerReference of a controller, with controller and blockOwnerDeletion true. */
export function controllerRef(owner: KObject): Record<string, unknown> {
  return {
    apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid,
    controller: true, blockOwnerDeletion: true,
  };
}

/** getPodsPrefix: `<controller>-` unless that is not a valid name prefix. */
export function podsPrefix(controllerName: string): string {
  const prefix = `${controllerName}-`;
  return isDNS1123Subdomain(prefix + 'a').length ? controllerName : prefix;
}

/** The error text inside "Error creating: ..." — what the API returned. */
function errorText(e: unknown): string {
  return e instanceof StatusError ? e.status.message ?? String(e) : (e as Error).message;
}

export interface PodCreate {
  /** The pod template (spec.template) of the controller. */
  template: Record<string, any>;
  /** The owning object (its kind/apiVersion/metadata are used for ownerReferences and events). */
  owner: KObject;
  /** A fixed name (StatefulSet); otherwise generateName `<owner>-`. */
  name?: string;
  /** Extra labels/annotations the controller adds (pod-template-hash, controller-revision-hash, ...). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Mutates the pod before it is sent (DaemonSet node affinity, Job index env, ...). */
  mutate?: (pod: Record<string, any>) => void;
}

export class PodControl {
  /** `pods` is the controller's own handle (its identity; a read-your-writes one where it has it). */
  constructor(private readonly pods: ResourceClient<KObject>, private readonly events: EventRecorder, private readonly component: string) {}

  /** podFromTemplate: labels, annotations and finalizers of the template, the controller's ownerReference. */
  build(req: PodCreate): Record<string, any> {
    const t = req.template ?? {};
    const meta: Record<string, any> = {
      labels: { ...(t.metadata?.labels ?? {}), ...(req.labels ?? {}) },
      annotations: { ...(t.metadata?.annotations ?? {}), ...(req.annotations ?? {}) },
      ownerReferences: [controllerRef(req.owner)],
    };
    if (Array.isArray(t.metadata?.finalizers)) meta.finalizers = [...t.metadata.finalizers];
    if (!Object.keys(meta.labels).length) delete meta.labels;
    if (!Object.keys(meta.annotations).length) delete meta.annotations;
    if (req.name) meta.name = req.name; else meta.generateName = podsPrefix(req.owner.metadata.name!);
    const pod: Record<string, any> = { apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: structuredClone(t.spec ?? {}) };
    req.mutate?.(pod);
    return pod;
  }

  /** Creates the pod; records SuccessfulCreate or FailedCreate on the owner. Rethrows a failure. */
  async create(req: PodCreate): Promise<KObject> {
    const ns = req.owner.metadata.namespace ?? '';
    try {
      // Callers only read the pod created (as they read the informer's copies).
      const pod = await this.pods.create(ns, this.build(req) as KObject, { fieldManager: FIELD_MANAGER, sharedResult: true });
      void this.events.record(referenceTo(req.owner), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`, this.component);
      return pod;
    } catch (e) {
      void this.events.record(referenceTo(req.owner), 'Warning', 'FailedCreate', `Error creating: ${errorText(e)}`, this.component);
      throw e;
    }
  }

  /** Deletes the pod (a pod already gone counts as deleted); records SuccessfulDelete or FailedDelete. */
  async delete(owner: KObject, pod: KObject): Promise<void> {
    const ns = pod.metadata.namespace ?? '';
    try {
      await this.pods.delete(ns, pod.metadata.name!, { fieldManager: FIELD_MANAGER });
    } catch (e) {
      if (e instanceof StatusError && e.status.code === 404) return;
      void this.events.record(referenceTo(owner), 'Warning', 'FailedDelete', `Error deleting: ${errorText(e)}`, this.component);
      throw e;
    }
    void this.events.record(referenceTo(owner), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`, this.component);
  }
}
