/**
 * Pod spec validation (src/validation/pod-spec.ts and friends): each check
 * with upstream v1.32's field path, message and value rendering, on pods
 * defaulted as the API server defaults them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { defaultPod, defaultPodTemplateSpec } from '../../src/component-helpers/pod-defaults.js';
import { validatePodCreate, validatePodSpec, validatePodTemplateSpec } from '../../src/validation/pod-spec.js';
import { podCreateWarnings, podTemplateWarnings } from '../../src/validation/pod-warnings.js';

const lines = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

/** A pod as the API server holds it at validation time (defaulted, in a namespace, with a service account). */
function pod(spec: Record<string, unknown>, meta: Record<string, unknown> = {}): any {
  const p: any = { metadata: { name: 'web', namespace: 'ns', ...meta }, spec: { containers: [{ name: 'app', image: 'nginx:1.25' }], ...spec } };
  defaultPod(p);
  p.spec.serviceAccountName ??= 'default';
  return p;
}
const create = (spec: Record<string, unknown>, meta?: Record<string, unknown>) => lines(validatePodCreate(pod(spec, meta)));
const ctr = (c: Record<string, unknown>) => ({ containers: [{ name: 'app', image: 'nginx:1.25', ...c }] });

describe('names and containers', () => {
  test('a minimal pod is valid', () => assert.deepEqual(create({}), []));
  test('pod names are DNS subdomains', () => {
    assert.match(create({}, { name: 'Web' })[0] ?? '', /^metadata.name: Invalid value: "Web": a lowercase RFC 1123 subdomain/);
  });
  test('containers are required', () => assert.deepEqual(create({ containers: [] }), ['spec.containers: Required value']));
  test('container names are DNS labels and unique across regular and init containers', () => {
    assert.match(create(ctr({ name: 'App_1' }))[0] ?? '', /^spec.containers\[0\].name: Invalid value: "App_1": a lowercase RFC 1123 label must consist/);
    assert.deepEqual(create({ containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] }), ['spec.containers[1].name: Duplicate value: "a"']);
    assert.deepEqual(create({ initContainers: [{ name: 'app', image: 'x' }] }), ['spec.initContainers[0].name: Duplicate value: "app"']);
  });
  test('image is required; a pod image may not have surrounding spaces', () => {
    assert.deepEqual(create(ctr({ image: '' })), ['spec.containers[0].image: Required value']);
    assert.deepEqual(create(ctr({ image: ' nginx' })), ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace']);
  });
  test('imagePullPolicy', () => {
    assert.deepEqual(create(ctr({ imagePullPolicy: 'IfNeeded' })),
      ['spec.containers[0].imagePullPolicy: Unsupported value: "IfNeeded": supported values: "Always", "IfNotPresent", "Never"']);
  });
});

describe('ports and env', () => {
  test('containerPort required and in range; hostPort in range; names unique', () => {
    assert.deepEqual(create(ctr({ ports: [{ containerPort: 0 }] })), ['spec.containers[0].ports[0].containerPort: Required value']);
    assert.deepEqual(create(ctr({ ports: [{ containerPort: 70000, hostPort: -1 }] })), [
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[0].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive',
    ]);
    assert.deepEqual(create(ctr({ ports: [{ name: 'http', containerPort: 80 }, { name: 'http', containerPort: 81 }] })),
      ['spec.containers[0].ports[1].name: Duplicate value: "http"']);
    assert.deepEqual(create(ctr({ ports: [{ containerPort: 80, protocol: 'ICMP' }] })),
      ['spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"']);
  });
  test('host ports may not conflict across containers', () => {
    const errs = create({ containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] },
      { name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] }] });
    assert.deepEqual(errs, ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"']);
  });
  test('env names (relaxed in v1.32): required, no "="; a leading digit is fine', () => {
    assert.deepEqual(create(ctr({ env: [{ name: '', value: 'x' }] })), ['spec.containers[0].env[0].name: Required value']);
    assert.deepEqual(create(ctr({ env: [{ name: 'A=B' }] })),
      ["spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='"]);
    assert.deepEqual(create(ctr({ env: [{ name: '1ST' }] })), []);
  });
  test('valueFrom: one source, not with a value, known field paths', () => {
    assert.deepEqual(create(ctr({ env: [{ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] })),
      ['spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty']);
    assert.deepEqual(create(ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } }] })),
      ['spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.hostname": error converting fieldPath: field label not supported: spec.hostname']);
    assert.deepEqual(create(ctr({ env: [{ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.schedulerName' } } }] })), [
      'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "spec.schedulerName": supported values: "metadata.name", ' +
      '"metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"']);
    assert.deepEqual(create(ctr({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'a/b' } } }] })), [
      "spec.containers[0].env[0].valueFrom.secretKeyRef.key: Invalid value: \"a/b\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]);
  });
});

describe('resources', () => {
  test('requests may not exceed limits (the limit is named)', () => {
    assert.deepEqual(create(ctr({ resources: { requests: { cpu: '1' }, limits: { cpu: '500m' } } })),
      ['spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m']);
  });
  test('quantities are not negative; resource names are standard or qualified', () => {
    assert.deepEqual(create(ctr({ resources: { requests: { memory: '-64Mi' } } })),
      ['spec.containers[0].resources.requests[memory]: Invalid value: "-64Mi": must be greater than or equal to 0']);
    // Defaulting copies the limit into requests, so both are reported.
    assert.deepEqual(create(ctr({ resources: { limits: { gpu: '1' } } })), [
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
      'spec.containers[0].resources.requests[gpu]: Invalid value: "gpu": must be a standard resource for containers',
    ]);
  });
  test('extended resources are whole numbers and need equal requests and limits', () => {
    const errs = create(ctr({ resources: { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } } }));
    assert.deepEqual(errs, ['spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2']);
  });
});

describe('volumes and mounts', () => {
  test('a mount must name a declared volume', () => {
    assert.deepEqual(create(ctr({ volumeMounts: [{ name: 'config', mountPath: '/etc/app' }] })),
      ['spec.containers[0].volumeMounts[0].name: Not found: "config"']);
  });
  test('volume names are unique DNS labels with exactly one source', () => {
    assert.deepEqual(create({ volumes: [{ name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} }] }), ['spec.volumes[1].name: Duplicate value: "a"']);
    // Defaulting turns a volume without a source into an emptyDir; undefaulted, it has none.
    assert.deepEqual(lines(validatePodSpec({ volumes: [{ name: 'a' }], containers: [{ name: 'c', image: 'x', terminationMessagePolicy: 'File',
      imagePullPolicy: 'Always' }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 }, 'spec')),
    ['spec.volumes[0]: Required value: must specify a volume type']);
    assert.deepEqual(create({ volumes: [{ name: 'a', emptyDir: {}, hostPath: { path: '/x' } }] }),
      ['spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type']);
  });
  test('mount paths are unique; subPath is relative (reported on the list path, as upstream does)', () => {
    const errs = create({ volumes: [{ name: 'v', emptyDir: {} }], ...ctr({ volumeMounts: [
      { name: 'v', mountPath: '/a', subPath: '/abs' }, { name: 'v', mountPath: '/a' }] }) });
    assert.deepEqual(errs, [
      'spec.containers[0].volumeMounts.subPath: Invalid value: "/abs": must be a relative path',
      'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/a": must be unique',
    ]);
  });
  test('configMap and secret volume items', () => {
    assert.deepEqual(create({ volumes: [{ name: 'c', configMap: { name: 'cm', items: [{ key: 'k', path: '../x' }], defaultMode: 1000 } }] }), [
      'spec.volumes[0].configMap.defaultMode: Invalid value: 1000: must be a number between 0 and 0777 (octal), both inclusive',
      "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not contain '..'",
    ]);
  });
});

describe('probes and lifecycle', () => {
  test('a probe needs exactly one handler', () => {
    assert.deepEqual(create(ctr({ readinessProbe: { initialDelaySeconds: 5 } })),
      ['spec.containers[0].readinessProbe: Required value: must specify a handler type']);
    assert.deepEqual(create(ctr({ livenessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } } })),
      ['spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type']);
  });
  test('liveness successThreshold must be 1; handler fields are checked', () => {
    assert.deepEqual(create(ctr({ livenessProbe: { httpGet: { port: 0 }, successThreshold: 2 } })), [
      'spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
    ]);
  });
  test('init containers may not have probes or lifecycle unless restartPolicy is Always', () => {
    assert.deepEqual(create({ initContainers: [{ name: 'i', image: 'x', readinessProbe: { exec: { command: ['true'] } } }] }),
      ['spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always']);
    assert.deepEqual(create({ initContainers: [{ name: 'i', image: 'x', restartPolicy: 'Always', readinessProbe: { exec: { command: ['true'] } } }] }), []);
    assert.deepEqual(create(ctr({ restartPolicy: 'Always' })), ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers']);
  });
  test('a sleep handler must fit in the grace period', () => {
    assert.deepEqual(create(ctr({ lifecycle: { preStop: { sleep: { seconds: 60 } } } })), [
      'spec.containers[0].lifecycle.preStop.sleep: Invalid value: 60: must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.']);
  });
});

describe('pod-level fields', () => {
  test('restartPolicy and dnsPolicy', () => {
    assert.deepEqual(create({ restartPolicy: 'Sometimes' }),
      ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"']);
    assert.deepEqual(create({ dnsPolicy: 'None' }), ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']);
    assert.deepEqual(create({ dnsPolicy: 'Cluster' }),
      ['spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"']);
  });
  test('nodeSelector keys and values are label keys and values', () => {
    assert.match(create({ nodeSelector: { 'bad key': 'x' } })[0] ?? '', /^spec.nodeSelector: Invalid value: "bad key": name part must consist of/);
  });
  test('tolerations', () => {
    assert.deepEqual(create({ tolerations: [{ key: 'k', operator: 'Like', value: 'v' }] }),
      ['spec.tolerations[0].operator: Unsupported value: "Like": supported values: "Equal", "Exists"']);
    assert.deepEqual(create({ tolerations: [{ key: 'k', operator: 'Exists', value: 'v' }] }),
      ["spec.tolerations[0].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'"]);
    assert.deepEqual(create({ tolerations: [{ operator: 'Equal', value: 'v' }] }),
      ['spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"']);
    assert.deepEqual(create({ tolerations: [{ key: 'k', operator: 'Exists', tolerationSeconds: 5 }] }),
      ["spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"]);
  });
  test('node affinity and pod anti-affinity', () => {
    const errs = create({ affinity: {
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'Is' }] }] } },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, podAffinityTerm: { topologyKey: '' } }] },
    } });
    assert.deepEqual(errs, [
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Required value: can not be empty',
      'spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: "": name part must be non-empty',
      "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });
  test('topology spread constraints', () => {
    const c = { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'Maybe', labelSelector: { matchLabels: { app: 'web' } } };
    assert.deepEqual(create({ topologySpreadConstraints: [c, { ...c, maxSkew: 1 }] }), [
      'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
      'spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
      'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, Maybe}"',
      'spec.topologySpreadConstraints[1].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
    ]);
  });
  test('security context ids and shareProcessNamespace with hostPID', () => {
    assert.deepEqual(create({ hostPID: true, shareProcessNamespace: true, securityContext: { runAsUser: -1 } }), [
      'spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
      'spec.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
    ]);
  });
  test('container security context: allowPrivilegeEscalation false with privileged prints the context as Go does', () => {
    const errs = create(ctr({ securityContext: { privileged: true, allowPrivilegeEscalation: false } }));
    assert.equal(errs.length, 1);
    assert.match(errs[0] ?? '', /^spec.containers\[0\].securityContext: Invalid value: core.SecurityContext\{Capabilities:\(\*core.Capabilities\)\(nil\), Privileged:\(\*bool\)\(0xc[0-9a-f]+\), .*\}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true$/);
  });
  test('ephemeral containers cannot be set on create and may not have ports or probes', () => {
    const errs = create({ ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'nope', ports: [{ containerPort: 80 }] }] });
    assert.deepEqual(errs, [
      'spec.ephemeralContainers[0].targetContainerName: Not found: "nope"',
      'spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container',
      'spec.ephemeralContainers: Forbidden: cannot be set on create',
    ]);
  });
  test('OS rules come last', () => {
    assert.deepEqual(create({ os: { name: 'windows' }, hostPID: true, restartPolicy: 'x' }), [
      'spec.restartPolicy: Unsupported value: "x": supported values: "Always", "OnFailure", "Never"',
      'spec.hostPID: Forbidden: cannot be set for a windows pod',
    ]);
  });
});

describe('templates', () => {
  test('validatePodTemplateSpec prefixes every path and checks labels at <path>.labels', () => {
    const t: any = { metadata: { labels: { app: 'bad value' } }, spec: { os: { name: 'windows' }, hostIPC: true, containers: [{ name: 'c', image: 'x' }] } };
    defaultPodTemplateSpec(t);
    const errs = lines(validatePodTemplateSpec(t, 'spec.template'));
    assert.equal(errs.length, 2);
    assert.match(errs[0] ?? '', /^spec.template.labels: Invalid value: "bad value": a valid label must be/);
    assert.equal(errs[1], 'spec.template.spec.hostIPC: Forbidden: cannot be set for a windows pod');
  });
  test('templates allow hostNetwork with an unset hostPort; pods need it to match', () => {
    const spec = { hostNetwork: true, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 80, protocol: 'TCP' }],
      terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }], restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30 };
    assert.deepEqual(validatePodSpec(spec, 'spec.template.spec'), []);
    assert.deepEqual(lines(validatePodSpec(spec, 'spec', { resourceIsPod: true })),
      ['spec.containers[0].ports[0].hostPort: Invalid value: 0: must match `containerPort` when `hostNetwork` is true']);
  });
  test('ephemeral containers are not allowed in templates', () => {
    const t: any = { spec: { containers: [{ name: 'c', image: 'x' }], ephemeralContainers: [{ name: 'e', image: 'x' }] } };
    defaultPodTemplateSpec(t);
    assert.equal(lines(validatePodTemplateSpec(t, 'spec.template')).at(-1),
      'spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template');
  });
});

describe('warnings', () => {
  test('deprecated node labels in nodeSelector and node affinity', () => {
    const p = pod({ nodeSelector: { 'beta.kubernetes.io/os': 'windows' }, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }] } } } });
    assert.deepEqual(podCreateWarnings(p), [
      'spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/arch is deprecated since v1.14; use "kubernetes.io/arch" instead',
    ]);
  });
  test('a name that is not a DNS label, fractional memory, duplicate env', () => {
    const p = pod(ctr({ resources: { limits: { memory: '100.5' } }, env: [{ name: 'A', value: '1' }, { name: 'A', value: '2' }] }), { name: 'web.v1' });
    assert.deepEqual(podCreateWarnings(p), [
      "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
      'spec.containers[0].resources.limits[memory]: fractional byte value "100500m" is invalid, must be an integer',
      'spec.containers[0].resources.requests[memory]: fractional byte value "100500m" is invalid, must be an integer',
      'spec.containers[0].env[1]: hides previous definition of "A", which may be dropped when using apply',
    ]);
  });
  test('template warnings carry the template path', () => {
    assert.deepEqual(podTemplateWarnings({ spec: { nodeSelector: { 'beta.kubernetes.io/os': 'linux' } } }, 'spec.template'),
      ['spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead']);
  });
});

describe('sysctls', () => {
  const sysctls = (names: string[], host: Record<string, unknown>) => create({ ...host, securityContext: { sysctls: names.map((name) => ({ name, value: '1' })) } });
  test('a namespaced sysctl of a namespace the pod shares with the host is invalid, in either separator form', () => {
    assert.deepEqual(sysctls(['kernel.msgmax', 'fs.mqueue.msg_max', 'kernel.domainname'], { hostIPC: true }), [
      'spec.securityContext.sysctls[0].name: Invalid value: "kernel.msgmax": may not be specified when \'hostIPC\' is true',
      'spec.securityContext.sysctls[1].name: Invalid value: "fs.mqueue.msg_max": may not be specified when \'hostIPC\' is true']);
    assert.deepEqual(sysctls(['net/ipv4/tcp_syncookies', 'kernel.shm_rmid_forced'], { hostNetwork: true }), [
      'spec.securityContext.sysctls[0].name: Invalid value: "net/ipv4/tcp_syncookies": may not be specified when \'hostNetwork\' is true']);
  });
  test('names match the sysctl pattern once each', () => {
    assert.deepEqual(sysctls(['kernel.shm_rmid_forced', 'kernel.shm_rmid_forced', 'Kernel.x'], {}), [
      'spec.securityContext.sysctls[1].name: Duplicate value: "kernel.shm_rmid_forced"',
      'spec.securityContext.sysctls[2].name: Invalid value: "Kernel.x": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$']);
  });
});
