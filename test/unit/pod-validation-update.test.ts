/**
 * Pod update validation (src/validation/pod-update.ts) and the cmp.Diff
 * emulation (src/validation/go-cmp.ts) behind "pod updates may not change
 * fields other than ...".
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { defaultPod } from '../../src/component-helpers/pod-defaults.js';
import { cmpDiff, difference } from '../../src/validation/go-cmp.js';
import { convert, goSyntaxOf, goType, internalPodSpec } from '../../src/validation/go-types.js';
import { UPDATABLE_POD_SPEC_FIELDS, validatePodEphemeralContainersUpdate, validatePodUpdate } from '../../src/validation/pod-update.js';

const lines = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);

/** A stored Windows pod like the golden cases' (defaulted, admitted). */
function stored(): any {
  const p: any = {
    metadata: { name: 'iis', namespace: 'ns', uid: 'u1', creationTimestamp: '2025-01-01T00:00:00Z', labels: { app: 'iis' } },
    spec: {
      os: { name: 'windows' }, nodeSelector: { 'kubernetes.io/os': 'windows' }, automountServiceAccountToken: false,
      schedulerName: 'windows-scheduler', securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } },
      containers: [{ name: 'iis', image: 'mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019', ports: [{ containerPort: 80 }] }],
      serviceAccountName: 'default', priority: 0, preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    },
    status: { phase: 'Pending', qosClass: 'BestEffort' },
  };
  defaultPod(p);
  return p;
}
const update = (mutate: (p: any) => void) => {
  const old = stored();
  const next = structuredClone(old);
  mutate(next);
  return validatePodUpdate(next, old);
};
const PREFIX = `spec: Forbidden: pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS}\n`;

describe('what a pod update may change', () => {
  test('images, additions to tolerations, a lower activeDeadlineSeconds', () => {
    assert.deepEqual(update((p) => { p.spec.containers[0].image = 'iis:ltsc2022'; }), []);
    assert.deepEqual(update((p) => { p.spec.tolerations.push({ key: 'os', operator: 'Equal', value: 'windows', effect: 'NoSchedule' }); }), []);
    assert.deepEqual(update((p) => { p.spec.tolerations[0].tolerationSeconds = 60; }), []);
    assert.deepEqual(update((p) => { p.spec.activeDeadlineSeconds = 100; }), []);
    assert.deepEqual(update((p) => { p.metadata.labels.tier = 'web'; }), []);
  });
  test('the allowed-fields list is joined with "," (no resources: InPlacePodVerticalScaling is off in v1.32)', () => {
    assert.equal(UPDATABLE_POD_SPEC_FIELDS, '`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,' +
      '`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)');
  });
  test('adding or removing containers stops the checks', () => {
    assert.deepEqual(lines(update((p) => { p.spec.containers.push({ ...p.spec.containers[0], name: 'b' }); })),
      ['spec.containers: Forbidden: pod updates may not add or remove containers']);
  });
  test('existing tolerations may only change tolerationSeconds', () => {
    assert.deepEqual(lines(update((p) => { p.spec.tolerations[0].effect = 'NoSchedule'; p.spec.tolerations[0].tolerationSeconds = undefined; })),
      ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
  });
  test('activeDeadlineSeconds may only go down and not away', () => {
    const old = stored();
    old.spec.activeDeadlineSeconds = 100;
    const up = structuredClone(old);
    up.spec.activeDeadlineSeconds = 200;
    assert.deepEqual(lines(validatePodUpdate(up, old)), ['spec.activeDeadlineSeconds: Invalid value: 200: must be less than or equal to previous value']);
    const gone = structuredClone(old);
    delete gone.spec.activeDeadlineSeconds;
    assert.deepEqual(lines(validatePodUpdate(gone, old)).slice(0, 1),
      ['spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value']);
  });
  test('any other change: Forbidden with the cmp.Diff of the internal PodSpec (old -, new +)', () => {
    assert.deepEqual(lines(update((p) => { p.spec.hostPID = true; })), [
      'spec.hostPID: Forbidden: cannot be set for a windows pod',
      PREFIX + [
        '  core.PodSpec{',
        '  \t... // 10 identical fields',
        '  \tAutomountServiceAccountToken: &false,',
        '  \tNodeName:                     "",',
        '  \tSecurityContext: &core.PodSecurityContext{',
        '  \t\tHostNetwork:           false,',
        '- \t\tHostPID:               false,',
        '+ \t\tHostPID:               true,',
        '  \t\tHostIPC:               false,',
        '  \t\tShareProcessNamespace: nil,',
        '  \t\t... // 14 identical fields',
        '  \t},',
        '  \tImagePullSecrets: nil,',
        '  \tHostname:         "",',
        '  \t... // 19 identical fields',
        '  }',
        '',
      ].join('\n'),
    ]);
  });
  test('removing spec.os shows the pointer going to nil; the last field group keeps its context', () => {
    const errs = lines(update((p) => { delete p.spec.os; }));
    assert.equal(errs.length, 1);
    assert.ok(errs[0]?.endsWith([
      '  \t... // 28 identical fields',
      '  \tEnableServiceLinks:        &true,',
      '  \tTopologySpreadConstraints: nil,',
      '- \tOS:                        &core.PodOS{Name: "windows"},',
      '+ \tOS:                        nil,',
      '  \tSchedulingGates:           nil,',
      '  \tResourceClaims:            nil,',
      '  \tResources:                 nil,',
      '  }',
      '',
    ].join('\n')), errs[0]);
  });
  test('a container-level change diffs the container, eliding identical fields', () => {
    const errs = lines(update((p) => { p.spec.containers[0].securityContext = { runAsUser: 1000 }; }));
    assert.equal(errs[0], 'spec.containers[0].securityContext.runAsUser: Forbidden: cannot be set for a windows pod');
    assert.ok(errs[1]?.includes([
      '  \tContainers: []core.Container{',
      '  \t\t{',
      '  \t\t\t... // 18 identical fields',
      '  \t\t\tTerminationMessagePolicy: "File",',
      '  \t\t\tImagePullPolicy:          "IfNotPresent",',
      '- \t\t\tSecurityContext:          nil,',
      '+ \t\t\tSecurityContext:          &core.SecurityContext{RunAsUser: &1000},',
    ].join('\n')), errs[1]);
  });
  test('a resources change is not allowed in v1.32 (and the QoS class may not change)', () => {
    const errs = lines(update((p) => { p.spec.containers[0].resources = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }; }));
    assert.equal(errs[0], 'metadata: Invalid value: "BestEffort": Pod QoS is immutable');
    assert.ok(errs[1]?.startsWith(PREFIX) && errs[1].includes('Resources: core.ResourceRequirements{'), errs[1]);
  });
  test('existing ephemeral containers may not change', () => {
    const old = stored();
    old.spec.ephemeralContainers = [{ name: 'dbg', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' }];
    const next = structuredClone(old);
    next.spec.ephemeralContainers[0].image = 'alpine';
    const errs = lines(validatePodEphemeralContainersUpdate(next, old));
    assert.equal(errs.length, 1);
    assert.match(errs[0] ?? '', /^spec.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be changed\n  core.EphemeralContainer\{/);
    assert.ok(errs[0]?.endsWith([
      '  \tEphemeralContainerCommon: core.EphemeralContainerCommon{',
      '  \t\tName:    "dbg",',
      '- \t\tImage:   "busybox",',
      '+ \t\tImage:   "alpine",',
      '  \t\tCommand: nil,',
      '  \t\tArgs:    nil,',
      '  \t\t... // 20 identical fields',
      '  \t},',
      '  \tTargetContainerName: "",',
      '  }',
      '',
    ].join('\n')), errs[0]);
  });
});

describe('go-cmp and Go syntax', () => {
  test('the edit script keeps equal elements and pairs similar ones', () => {
    const eq = (a: string[], b: string[]) => difference(a.length, b.length, (i, j) => (a[i] === b[j] ? { numSame: 1, numDiff: 0 } : { numSame: 0, numDiff: 2 })).join('');
    assert.equal(eq(['a', 'b', 'c'], ['a', 'b', 'c']), '...');
    assert.equal(eq(['a', 'b'], ['a', 'x', 'b']), '.Y.');
    assert.equal(eq(['a', 'b', 'c'], ['a', 'c']), '.X.');
  });
  test('equal values have no diff; nil and empty differ to cmp', () => {
    const t = goType('core.PodSpec');
    assert.equal(cmpDiff(t, internalPodSpec({ containers: [] }), internalPodSpec({ containers: [] })), '');
    assert.match(cmpDiff(t, internalPodSpec({}), internalPodSpec({ containers: [] })), /- \tContainers: *nil,\n\+ \tContainers: *\[\]core.Container\{\},/);
  });
  test('a map entry diff formats keys and elides equal entries', () => {
    const t = goType('map[string]string');
    const d = cmpDiff(t, convert(t, { a: '1', b: '2', c: '3', d: '4', e: '5' }), convert(t, { a: '1', b: '2', c: 'x', d: '4', e: '5' }));
    assert.equal(d, '  map[string]string{\n  \t"a": "1",\n  \t"b": "2",\n- \t"c": "3",\n+ \t"c": "x",\n  \t"d": "4",\n  \t"e": "5",\n  }\n');
  });
  test('%#v of internal types, with placeholder pointer addresses', () => {
    assert.equal(goSyntaxOf('core.Toleration', { key: 'k', operator: 'Exists', value: 'v' }),
      'core.Toleration{Key:"k", Operator:"Exists", Value:"v", Effect:"", TolerationSeconds:(*int64)(nil)}');
    assert.equal(goSyntaxOf('[]string', ['a', 'b']), '[]string{"a", "b"}');
    assert.equal(goSyntaxOf('[]string', null), '[]string(nil)');
  });
});
