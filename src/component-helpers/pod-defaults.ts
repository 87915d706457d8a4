/**
 * Pod and pod template defaulting, as upstream v1.32 applies it on decode
 * (SetObjectDefaults_Pod / SetObjectDefaults_PodTemplate in
 * pkg/apis/core/v1/zz_generated.defaults.go and the SetDefaults_* functions
 * of defaults.go), plus the zero values Go's encoder writes back.
 *
 * defaultPodSpec and defaultPodTemplateSpec are shared with the workload
 * resources (apps, batch). They throw DecodeError for a value Go cannot
 * decode (e.g. a bad quantity); wrap them in decoding(kind, ...) from
 * ./decode.js to answer with upstream's 400.
 */
import type { PodSpec, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { isObject, pruneEmpty } from '../meta/json.js';
import { imageTag } from '../meta/image-ref.js';
import { defaultResourceList } from '../apimachinery/quantity.js';
import { defaultFieldRef, defaultVolume } from './volume-defaults.js';

/** Go drops zero scalars of omitempty fields when it writes an object back. */
function pruneZero(obj: Record<string, any> | undefined, ...keys: string[]): void {
  if (!obj) return;
  for (const k of keys) {
    const v = obj[k];
    if (v === false || v === '' || v === 0 || v === null) delete obj[k];
  }
}

/** SetDefaults_HTTPGetAction. */
function defaultHTTPGet(h: Record<string, any> | undefined): void {
  if (!isObject(h)) return;
  if (!h.path) h.path = '/';
  if (!h.scheme) h.scheme = 'HTTP';
  pruneZero(h, 'host');
}

/** SetDefaults_Probe plus its handler's defaults (httpGet; grpc.service defaults to ""). */
function defaultProbe(p: Record<string, any> | undefined): void {
  if (!isObject(p)) return;
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  pruneZero(p, 'initialDelaySeconds');
  defaultHTTPGet(p.httpGet);
  if (isObject(p.grpc) && (p.grpc.service === undefined || p.grpc.service === null)) p.grpc.service = '';
}

/** SetDefaults_Container and the defaults nested in a container. */
function defaultContainer(c: Record<string, any>): void {
  if (!isObject(c)) return;
  if (!c.imagePullPolicy) {
    // PullAlways for an untagged or ":latest" image, IfNotPresent otherwise.
    c.imagePullPolicy = imageTag(typeof c.image === 'string' ? c.image : '') === 'latest' ? 'Always' : 'IfNotPresent';
  }
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  for (const port of c.ports ?? []) {
    if (!isObject(port)) continue;
    if (!port.protocol) port.protocol = 'TCP';
    pruneZero(port, 'name', 'hostPort', 'hostIP');
  }
  for (const env of c.env ?? []) {
    if (!isObject(env)) continue;
    if (isObject(env.valueFrom)) defaultFieldRef(env.valueFrom.fieldRef);
    pruneZero(env, 'value');
  }
  // ResourceRequirements is a struct: Go always writes "resources", even empty.
  if (!isObject(c.resources)) c.resources = {};
  defaultResourceList(c.resources.limits);
  defaultResourceList(c.resources.requests);
  pruneEmpty(c.resources, 'limits', 'requests', 'claims');
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  if (isObject(c.lifecycle)) {
    if (isObject(c.lifecycle.postStart)) defaultHTTPGet(c.lifecycle.postStart.httpGet);
    if (isObject(c.lifecycle.preStop)) defaultHTTPGet(c.lifecycle.preStop.httpGet);
  }
  for (const m of c.volumeMounts ?? []) if (isObject(m)) pruneZero(m, 'readOnly', 'subPath', 'subPathExpr');
  pruneZero(c, 'image', 'workingDir', 'stdin', 'stdinOnce', 'tty');
  pruneEmpty(c, 'command', 'args', 'ports', 'env', 'envFrom', 'volumeMounts', 'volumeDevices', 'resizePolicy');
}

/**
 * SetDefaults_PodSpec and every default nested in a pod spec: volumes,
 * init/regular/ephemeral containers, overhead and pod-level resources. What
 * SetDefaults_Pod adds on top (requests from limits, enableServiceLinks,
 * host-network ports) applies to pods only, not to templates.
 */
export function defaultPodSpec(spec: PodSpec): void {
  const s = spec as Record<string, any>;
  if (!isObject(s)) return;
  if (!s.dnsPolicy) s.dnsPolicy = 'ClusterFirst';
  if (!s.restartPolicy) s.restartPolicy = 'Always';
  if (!isObject(s.securityContext)) s.securityContext = {};
  if (s.terminationGracePeriodSeconds === undefined || s.terminationGracePeriodSeconds === null) {
    s.terminationGracePeriodSeconds = 30;
  }
  if (!s.schedulerName) s.schedulerName = 'default-scheduler';
  // Conversion, not defaulting, but it applies to every PodSpec: serviceAccount is the deprecated
  // alias of serviceAccountName (the new field wins) and is written back from it.
  if (!s.serviceAccountName && s.serviceAccount) s.serviceAccountName = s.serviceAccount;
  if (s.serviceAccountName) s.serviceAccount = s.serviceAccountName; else delete s.serviceAccount;
  for (const v of s.volumes ?? []) defaultVolume(v);
  for (const c of s.initContainers ?? []) defaultContainer(c);
  for (const c of s.containers ?? []) defaultContainer(c);
  for (const c of s.ephemeralContainers ?? []) defaultContainer(c);
  defaultResourceList(s.overhead);
  if (isObject(s.resources)) {
    defaultResourceList(s.resources.limits);
    defaultResourceList(s.resources.requests);
  }
  for (const t of s.tolerations ?? []) if (isObject(t)) pruneZero(t, 'key', 'operator', 'value', 'effect');
  pruneZero(s, 'serviceAccountName', 'serviceAccount', 'nodeName', 'hostNetwork', 'hostPID', 'hostIPC', 'hostname',
    'subdomain', 'priorityClassName');
  pruneEmpty(s, 'volumes', 'initContainers', 'ephemeralContainers', 'imagePullSecrets', 'nodeSelector', 'tolerations',
    'hostAliases', 'readinessGates', 'topologySpreadConstraints', 'overhead', 'schedulingGates', 'resourceClaims');
}

/** Init container annotations of pre-1.8 clients, which conversion drops from pods and templates. */
const INIT_CONTAINER_ANNOTATIONS = ['pod.beta.kubernetes.io/init-containers', 'pod.alpha.kubernetes.io/init-containers',
  'pod.beta.kubernetes.io/init-container-statuses', 'pod.alpha.kubernetes.io/init-container-statuses'];

function dropInitContainerAnnotations(meta: Record<string, any> | undefined): void {
  if (!isObject(meta) || !isObject(meta.annotations)) return;
  for (const k of INIT_CONTAINER_ANNOTATIONS) delete meta.annotations[k];
  pruneEmpty(meta, 'annotations');
}

/**
 * A pod template (PodTemplateSpec): the spec's defaults. Go writes the
 * template's zero ObjectMeta.creationTimestamp as null, so it appears here
 * too. Accepts undefined (ReplicationController's template is optional).
 */
export function defaultPodTemplateSpec(template: PodTemplateSpec | undefined): void {
  if (!isObject(template)) return;
  const t = template as Record<string, any>;
  if (!isObject(t.metadata)) t.metadata = {};
  if (t.metadata.creationTimestamp === undefined) t.metadata.creationTimestamp = null;
  dropInitContainerAnnotations(t.metadata);
  pruneEmpty(t.metadata, 'labels', 'annotations', 'finalizers', 'ownerReferences');
  if (!isObject(t.spec)) t.spec = {};
  defaultPodSpec(t.spec);
}

/** requests default to limits, per container (SetDefaults_Pod). */
function requestsFromLimits(c: Record<string, any>): void {
  if (!isObject(c) || !isObject(c.resources) || !isObject(c.resources.limits)) return;
  const limits = c.resources.limits;
  if (!isObject(c.resources.requests)) c.resources.requests = {};
  for (const [k, v] of Object.entries(limits)) if (!(k in c.resources.requests)) c.resources.requests[k] = v;
}

/** With host networking, container ports default their hostPort to the container port. */
function hostNetworkPorts(containers: Record<string, any>[] | undefined): void {
  for (const c of containers ?? []) {
    for (const p of (isObject(c) ? c.ports : undefined) ?? []) if (isObject(p) && !p.hostPort) p.hostPort = p.containerPort;
  }
}

/** SetObjectDefaults_Pod: SetDefaults_Pod, then the spec, then ResourceLists in status. */
export function defaultPod(pod: Record<string, any>): void {
  dropInitContainerAnnotations(pod.metadata);
  if (!isObject(pod.spec)) pod.spec = {};
  const spec = pod.spec;
  for (const c of spec.containers ?? []) requestsFromLimits(c);
  for (const c of spec.initContainers ?? []) requestsFromLimits(c);
  // PodLevelResources is alpha (off) in v1.32: no pod-level request/limit defaults.
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (spec.hostNetwork === true) {
    hostNetworkPorts(spec.containers);
    hostNetworkPorts(spec.initContainers);
  }
  defaultPodSpec(spec);
  if (isObject(pod.status)) {
    for (const key of ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses']) {
      for (const st of pod.status[key] ?? []) {
        if (!isObject(st)) continue;
        defaultResourceList(st.allocatedResources);
        if (isObject(st.resources)) {
          defaultResourceList(st.resources.limits);
          defaultResourceList(st.resources.requests);
        }
      }
    }
  }
}
