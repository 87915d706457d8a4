/**
 * The admission decisions of `agnhost webhook` (kubernetes/kubernetes
 * test/images/agnhost/webhook: alwaysallow.go, alwaysdeny.go, addlabel.go,
 * pods.go, configmap.go, customresource.go, crd.go, main.go's serve), as
 * pure functions of the request path and body: what the handler writes.
 *
 * The answers are the Go structs as encoding/json writes them: an
 * AdmissionReview of the request's version with `response` in field order
 * (uid, allowed, status, patch, patchType), a metav1.Status result with its
 * `metadata: {}` (omitempty does not drop a struct) and the patches as the
 * handlers' raw string constants, base64-encoded as []byte fields are.
 * Handlers that return a nil response make serve dereference it: the panic
 * ends the connection unanswered (`reset`).
 */

/** What one request makes the handler do. */
export type WebhookAnswer =
  /** 200 with this JSON body (Content-Type application/json); `delayMs`: the handler sleeps first. */
  | { kind: 'json'; body: string; delayMs?: number; log: string[]; errorLog?: string }
  /** http.Error: the status and the message line, text/plain. */
  | { kind: 'error'; status: number; message: string; log: string[]; errorLog?: string }
  /** The handler returns without writing: net/http's empty 200. */
  | { kind: 'empty'; errorLog: string }
  /** The handler panics (a nil response): the connection closes unanswered. */
  | { kind: 'reset'; log: string[]; errorLog?: string }
  /** The handler blocks forever (`wait-forever`). */
  | { kind: 'never'; log: string[] }
  /** No handler for the path: the mux's 404 (or /readyz's `ok`). */
  | { kind: 'plain'; status: number; body: string };

/** The paths main.go registers, to the admit function each serves. */
export const WEBHOOK_PATHS = ['/always-allow-delay-5s', '/always-deny', '/add-label', '/pods', '/pods/attach', '/mutating-pods',
  '/mutating-pods-sidecar', '/configmaps', '/mutating-configmaps', '/custom-resource', '/mutating-custom-resource', '/crd'] as const;

interface GVR { group: string; version: string; resource: string }
interface RawRequest {
  uid?: string;
  resource?: Partial<GVR>;
  subResource?: string;
  name?: string;
  operation?: string;
  object?: unknown;
  oldObject?: unknown;
}

/** metav1.Status as encoding/json writes it (the fields a handler sets, in struct order). */
interface Result { status?: string; message?: string; reason?: string; code?: number }

interface Response { allowed: boolean; result?: Result; patch?: string }

/** A handler's outcome: a response, a nil one, or blocking forever. */
type Admitted = { response: Response; log: string[]; errorLog?: string } | { nil: true; log: string[]; errorLog: string } | { never: true; log: string[] };

const ADD_FIRST_LABEL = `[
         { "op": "add", "path": "/metadata/labels", "value": {"added-label": "yes"}}
     ]`;
const ADD_ADDITIONAL_LABEL = `[
         { "op": "add", "path": "/metadata/labels/added-label", "value": "yes" }
     ]`;
const UPDATE_LABEL = `[
         { "op": "replace", "path": "/metadata/labels/added-label", "value": "yes" }
     ]`;
const PODS_INIT_CONTAINER = `[
		 {"op":"add","path":"/spec/initContainers","value":[{"image":"webhook-added-image","name":"webhook-added-init-container","resources":{}}]}
	]`;
const podsSidecar = (image: string) => `[
		{"op":"add", "path":"/spec/containers/-","value":{"image":"${image}","name":"webhook-added-sidecar","resources":{}}}
	]`;
const STAGE_1 = `[
         { "op": "add", "path": "/data/mutation-stage-1", "value": "yes" }
     ]`;
const STAGE_2 = `[
         { "op": "add", "path": "/data/mutation-stage-2", "value": "yes" }
     ]`;

/** A metav1.GroupVersionResource printed with %s (a value: its String method has a pointer receiver). */
const gvrValue = (r: Partial<GVR> | undefined) => `{${r?.group ?? ''} ${r?.version ?? ''} ${r?.resource ?? ''}}`;
const sameGVR = (r: Partial<GVR> | undefined, want: GVR) =>
  (r?.group ?? '') === want.group && (r?.version ?? '') === want.version && (r?.resource ?? '') === want.resource;

const POD_RESOURCE: GVR = { group: '', version: 'v1', resource: 'pods' };
const CONFIGMAP_RESOURCE: GVR = { group: '', version: 'v1', resource: 'configmaps' };

/** toV1AdmissionResponse: the error as the result's message, not allowed. */
const errorResponse = (message: string, log: string[]): Admitted => ({ response: { allowed: false, result: { message } }, log, errorLog: message });

const allowed = (log: string[]): Admitted => ({ response: { allowed: true }, log });

/** The object as json.Unmarshal sees the raw bytes: absent raw bytes fail to decode. */
function decoded(raw: unknown): { obj: Record<string, unknown> } | { error: string } {
  if (raw === undefined || raw === null) return { error: 'unexpected end of JSON input' };
  return { obj: (typeof raw === 'object' ? raw : {}) as Record<string, unknown> };
}

/** encoding/json matches field names case-insensitively: the value of `name` in any case. */
function field(obj: Record<string, unknown>, name: string): unknown {
  if (name in obj) return obj[name];
  const k = Object.keys(obj).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : obj[k];
}

const stringMap = (v: unknown): Record<string, string> => (v && typeof v === 'object' ? v as Record<string, string> : {});
const labelsOf = (obj: Record<string, unknown>) => stringMap(stringMap(obj.metadata).labels);
const patched = (patch: string | undefined, log: string[]): Admitted => ({ response: { allowed: true, ...(patch ? { patch } : {}) }, log });

function addLabel(req: RawRequest): Admitted {
  const log = ['calling add-label'];
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  const labels = labelsOf(d.obj);
  if (!Object.keys(labels).length) return patched(ADD_FIRST_LABEL, log);
  if (!('added-label' in labels)) return patched(ADD_ADDITIONAL_LABEL, log);
  if (labels['added-label'] !== 'yes') return patched(UPDATE_LABEL, log);
  return allowed(log);
}

interface ContainerShape { name?: string }
const containersOf = (pod: Record<string, unknown>, key: 'containers' | 'initContainers') =>
  ((stringMap(pod.spec) as unknown as Record<string, ContainerShape[] | undefined>)[key] ?? []);

function admitPods(req: RawRequest): Admitted {
  const log = ['admitting pods'];
  if (!sameGVR(req.resource, POD_RESOURCE)) return errorResponse(`expect resource to be ${gvrValue(POD_RESOURCE)}`, log);
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  let ok = true;
  let msg = '';
  const v = labelsOf(d.obj)['webhook-e2e-test'];
  if (v === 'webhook-disallow') { ok = false; msg += 'the pod contains unwanted label; '; }
  if (v === 'wait-forever') return { never: true, log };
  for (const c of containersOf(d.obj, 'containers')) {
    if ((c.name ?? '').includes('webhook-disallow')) { ok = false; msg += 'the pod contains unwanted container name; '; }
  }
  return ok ? allowed(log) : { response: { allowed: false, result: { message: msg.trim() } }, log };
}

function applyPodPatch(req: RawRequest, shouldPatch: (pod: Record<string, unknown>) => boolean, patch: string): Admitted {
  const log = ['mutating pods'];
  if (!sameGVR(req.resource, POD_RESOURCE)) return { nil: true, log, errorLog: `expect resource to be ${gvrValue(POD_RESOURCE)}` };
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  return patched(shouldPatch(d.obj) ? patch : undefined, log);
}

const hasContainer = (cs: ContainerShape[], name: string) => cs.some((c) => c.name === name);

function mutatePods(req: RawRequest): Admitted {
  return applyPodPatch(req, (pod) => (stringMap(pod.metadata).name === 'webhook-to-be-mutated')
    && !hasContainer(containersOf(pod, 'initContainers'), 'webhook-added-init-container'), PODS_INIT_CONTAINER);
}

function mutatePodsSidecar(req: RawRequest, sidecarImage: string): Admitted {
  if (!sidecarImage) {
    return { response: { allowed: false, result: { status: 'Failure', message: 'No image specified by the sidecar-image parameter', code: 500 } }, log: [] };
  }
  return applyPodPatch(req, (pod) => !hasContainer(containersOf(pod, 'containers'), 'webhook-added-sidecar'), podsSidecar(sidecarImage));
}

function denySpecificAttachment(req: RawRequest): Admitted {
  const log = ['handling attaching pods'];
  if (req.name !== 'to-be-attached-pod') return allowed(log);
  if (!sameGVR(req.resource, POD_RESOURCE)) return errorResponse(`expect resource to be ${gvrValue(POD_RESOURCE)}, got ${gvrValue(req.resource)}`, log);
  if (req.subResource !== 'attach') return errorResponse(`expect subresource to be attach, got ${req.subResource ?? ''}`, log);
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  if (d.obj.stdin !== true || d.obj.container !== 'container1') return allowed(log);
  return { response: { allowed: false, result: { message: "attaching to pod 'to-be-attached-pod' is not allowed" } }, log };
}

/** configmap.go's and customresource.go's admit: deny a key/value on writes, another on deletes (reasons, not messages). */
function admitData(req: RawRequest, data: (obj: Record<string, unknown>) => Record<string, string>, what: { write: string; del: string }, log: string[]): Admitted {
  const d = decoded(req.operation === 'DELETE' ? req.oldObject : req.object);
  if ('error' in d) return errorResponse(d.error, log);
  const v = data(d.obj)['webhook-e2e-test'];
  const writing = req.operation === 'CREATE' || req.operation === 'UPDATE';
  if (v === 'webhook-disallow' && writing) return { response: { allowed: false, result: { reason: what.write } }, log };
  if (v === 'webhook-nondeletable' && req.operation === 'DELETE') return { response: { allowed: false, result: { reason: what.del } }, log };
  return allowed(log);
}

/** The two-stage mutation of configmap.go and customresource.go: stage 2's patch wins when both apply. */
function mutateData(req: RawRequest, data: (obj: Record<string, unknown>) => Record<string, string>, log: string[]): Admitted {
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  const m = data(d.obj);
  let patch: string | undefined;
  if (m['mutation-start'] === 'yes') patch = STAGE_1;
  if (m['mutation-stage-1'] === 'yes') patch = STAGE_2;
  return patched(patch, log);
}

const configMapData = (obj: Record<string, unknown>) => stringMap(obj.data);
const customResourceData = (obj: Record<string, unknown>) => stringMap(field(obj, 'Data'));

function admitCRD(req: RawRequest): Admitted {
  const log = ['admitting crd'];
  const v1beta1 = { group: 'apiextensions.k8s.io', version: 'v1beta1', resource: 'customresourcedefinitions' };
  const v1 = { ...v1beta1, version: 'v1' };
  if (!sameGVR(req.resource, v1beta1) && !sameGVR(req.resource, v1)) {
    return errorResponse(`expect resource to be one of [${gvrValue(v1beta1)}, ${gvrValue(v1)}] but got ${gvrValue(req.resource)}`, log);
  }
  const d = decoded(req.object);
  if ('error' in d) return errorResponse(d.error, log);
  if (labelsOf(d.obj)['webhook-e2e-test'] === 'webhook-disallow') {
    return { response: { allowed: false, result: { message: 'the crd contains unwanted label' } }, log };
  }
  return allowed(log);
}

function admit(path: (typeof WEBHOOK_PATHS)[number], req: RawRequest, sidecarImage: string): Admitted {
  switch (path) {
    case '/always-allow-delay-5s':
      return { response: { allowed: true, result: { message: 'this webhook allows all requests' } }, log: ['always-allow-with-delay sleeping for 5 seconds', 'calling always-allow'] };
    case '/always-deny': return { response: { allowed: false, result: { message: 'this webhook denies all requests' } }, log: ['calling always-deny'] };
    case '/add-label': return addLabel(req);
    case '/pods': return admitPods(req);
    case '/pods/attach': return denySpecificAttachment(req);
    case '/mutating-pods': return mutatePods(req);
    case '/mutating-pods-sidecar': return mutatePodsSidecar(req, sidecarImage);
    case '/configmaps':
      if (!sameGVR(req.resource, CONFIGMAP_RESOURCE)) return { nil: true, log: ['admitting configmaps'], errorLog: `expect resource to be ${gvrValue(CONFIGMAP_RESOURCE)}` };
      return admitData(req, configMapData, { write: 'the configmap contains unwanted key and value', del: 'the configmap cannot be deleted because it contains unwanted key and value' }, ['admitting configmaps']);
    case '/mutating-configmaps':
      if (!sameGVR(req.resource, CONFIGMAP_RESOURCE)) return { nil: true, log: ['mutating configmaps'], errorLog: `expect resource to be ${gvrValue(CONFIGMAP_RESOURCE)}` };
      return mutateData(req, configMapData, ['mutating configmaps']);
    case '/custom-resource':
      return admitData(req, customResourceData, { write: 'the custom resource contains unwanted data', del: 'the custom resource cannot be deleted because it contains unwanted key and value' }, ['admitting custom resource']);
    case '/mutating-custom-resource': return mutateData(req, customResourceData, ['mutating custom resource']);
    case '/crd': return admitCRD(req);
  }
}

/** encoding/json of the AdmissionResponse, fields in struct order. */
function responseJSON(uid: string, r: Response): Record<string, unknown> {
  const result = r.result && {
    metadata: {},
    ...(r.result.status ? { status: r.result.status } : {}),
    ...(r.result.message ? { message: r.result.message } : {}),
    ...(r.result.reason ? { reason: r.result.reason } : {}),
    ...(r.result.code ? { code: r.result.code } : {}),
  };
  return {
    uid, allowed: r.allowed, ...(result ? { status: result } : {}),
    ...(r.patch ? { patch: Buffer.from(r.patch, 'utf8').toString('base64'), patchType: 'JSONPatch' } : {}),
  };
}

const REVIEW_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'];

/** serve(): the handler's answer to a request on one of WEBHOOK_PATHS. */
export function serveAdmission(path: (typeof WEBHOOK_PATHS)[number], contentType: string | undefined, body: string, sidecarImage: string): WebhookAnswer {
  if (contentType !== 'application/json') return { kind: 'empty', errorLog: `contentType=${contentType ?? ''}, expect application/json` };
  const handling = `handling request: ${body}`;
  let review: { apiVersion?: string; kind?: string; request?: RawRequest };
  try {
    review = JSON.parse(body) as typeof review;
  } catch (e) {
    const message = `Request could not be decoded: ${(e as Error).message}`;
    return { kind: 'error', status: 400, message, log: [handling], errorLog: message };
  }
  const apiVersion = review.apiVersion ?? '';
  if (review.kind !== 'AdmissionReview' || !REVIEW_VERSIONS.includes(apiVersion)) {
    const [group = '', version = ''] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
    const message = `Unsupported group version kind: ${group}/${version}, Kind=${review.kind ?? ''}`;
    return { kind: 'error', status: 400, message, log: [handling], errorLog: message };
  }
  const req = review.request ?? {};
  const a = admit(path, req, sidecarImage);
  if ('never' in a) return { kind: 'never', log: [handling, ...a.log] };
  if ('nil' in a) return { kind: 'reset', log: [handling, ...a.log], errorLog: a.errorLog };
  const out = { kind: 'AdmissionReview', apiVersion, response: responseJSON(req.uid ?? '', a.response) };
  return {
    kind: 'json', body: JSON.stringify(out), log: [handling, ...a.log], ...(a.errorLog ? { errorLog: a.errorLog } : {}),
    ...(path === '/always-allow-delay-5s' ? { delayMs: 5000 } : {}),
  };
}
