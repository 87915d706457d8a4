/**
 * Workload rules (pkg/apis/apps/validation, pkg/apis/batch/validation and
 * ValidateReplicationController, v1.32) as the registry runs them on
 * defaulted apps/v1, batch/v1 and core/v1 objects. Pod spec rules are the
 * pod validation module's and are not asserted here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, type FieldError } from '../../src/apimachinery/field-errors.js';
import { daemonsets, defaultDaemonSet } from '../../src/registry/groups/apps/daemonsets.js';
import { defaultDeployment, deployments } from '../../src/registry/groups/apps/deployments.js';
import { defaultReplicaSet, replicasets } from '../../src/registry/groups/apps/replicasets.js';
import { defaultStatefulSet, statefulsets } from '../../src/registry/groups/apps/statefulsets.js';
import { cronjobs, defaultCronJob } from '../../src/registry/groups/batch/cronjobs.js';
import { defaultJob, generateSelector, jobs } from '../../src/registry/groups/batch/jobs.js';
import { defaultReplicationController, replicationcontrollers } from '../../src/registry/core/replicationcontrollers.js';
import { cronScheduleError } from '../../src/apimachinery/cron-schedule.js';

/** Only the workload's own errors: pod spec errors (spec.template.spec.* other than the controller rules) are filtered out. */
const msgs = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`)
  .filter((m) => !/\.spec\.(containers|initContainers|volumes|securityContext|os|dnsPolicy)/.test(m));
const template = (labels: Record<string, string> | undefined, spec: Record<string, unknown> = {}) =>
  ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
const meta = (name = 'w') => ({ name, namespace: 'ns', uid: 'u-1' });

function deployment(spec: Record<string, unknown>): any {
  const d: any = { metadata: meta(), spec: structuredClone(spec) };
  defaultDeployment(d);
  return d;
}

test('deployment: selector required, must match the template labels', () => {
  assert.deepEqual(msgs(deployments.validate!(deployment({ template: template({ app: 'a' }) }))), [
    'spec.selector: Required value',
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
  ]);
  assert.deepEqual(msgs(deployments.validate!(deployment({ selector: { matchLabels: { app: 'b' } }, template: template({ app: 'a' }) }))),
    ['spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`']);
  assert.deepEqual(msgs(deployments.validate!(deployment({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) }))), []);
});

test('deployment: empty and malformed selectors', () => {
  assert.deepEqual(msgs(deployments.validate!(deployment({ selector: {}, template: template({ app: 'a' }) }))),
    ['spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment']);
  assert.deepEqual(msgs(deployments.validate!(deployment({
    selector: { matchExpressions: [{ key: 'app', operator: 'Is', values: ['a'] }] }, template: template({ app: 'a' }),
  }))), [
    'spec.selector.matchExpressions[0].operator: Invalid value: "Is": not a valid selector operator',
    'spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:app,Operator:Is,Values:[a],},},}: invalid label selector',
  ]);
});

test('deployment: replicas, strategy and progress deadline', () => {
  const d = deployment({
    replicas: -1, selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } }, progressDeadlineSeconds: 0,
  });
  assert.deepEqual(msgs(deployments.validate!(d)), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0',
    'spec.progressDeadlineSeconds: Invalid value: 0: must be greater than minReadySeconds',
  ]);
  assert.deepEqual(msgs(deployments.validate!(deployment({
    selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '120%', maxSurge: 'x' } },
  }))), [
    "spec.strategy.rollingUpdate.maxSurge: Invalid value: x: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 120%: must not be greater than 100%',
  ]);
  assert.deepEqual(msgs(deployments.validate!(deployment({
    selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), strategy: { type: 'Recreate', rollingUpdate: {} },
  }))), ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]);
  assert.deepEqual(msgs(deployments.validate!(deployment({
    selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), strategy: { type: 'Blue' },
  }))), ['spec.strategy: Unsupported value: apps.DeploymentStrategy{Type:"Blue", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}: supported values: "Recreate", "RollingUpdate"']);
});

test('deployment: template restartPolicy must be Always; activeDeadlineSeconds is not supported', () => {
  const d = deployment({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }) });
  assert.deepEqual(msgs(deployments.validate!(d)), [
    'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported',
  ]);
});

test('deployment update: the selector is immutable in apps/v1', () => {
  const old = deployment({ selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a', v: '1' }) });
  const next = deployment({ selector: { matchLabels: { app: 'a', v: '1' } }, template: template({ app: 'a', v: '1' }) });
  assert.deepEqual(msgs(deployments.validateUpdate!(next, old)),
    ['spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{app: a,v: 1,},MatchExpressions:[]LabelSelectorRequirement{},}: field is immutable']);
});

test('replicaset: the same selector rules, "for deployment" in the empty-selector message as upstream', () => {
  const rs: any = { metadata: meta(), spec: { selector: {}, template: template({ app: 'a' }) } };
  defaultReplicaSet(rs);
  assert.deepEqual(msgs(replicasets.validate!(rs)),
    ['spec.selector: Invalid value: &LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{},}: empty selector is invalid for deployment']);
});

test('statefulset: selector and policies; the pod template spec is not validated in v1.32', () => {
  const sts: any = { metadata: meta(), spec: { podManagementPolicy: 'Random', selector: { matchLabels: { app: 'b' } }, template: template({ app: 'a' }, { hostPID: 'x' }) } };
  defaultStatefulSet(sts);
  assert.deepEqual(statefulsets.validate!(sts).map((e) => `${e.field}: ${errorBody(e)}`), [
    "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'",
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
  ]);
});

test('statefulset update: only replicas, template, updateStrategy, ordinals, retention policy and minReadySeconds may change', () => {
  const base = { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), serviceName: 'one' };
  const old: any = { metadata: meta(), spec: structuredClone(base) };
  const next: any = { metadata: meta(), spec: { ...structuredClone(base), serviceName: 'two', replicas: 3 } };
  defaultStatefulSet(old);
  defaultStatefulSet(next);
  assert.deepEqual(msgs(statefulsets.validateUpdate!(next, old)), [
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
  ]);
});

test('daemonset: a missing selector only shows as a template mismatch; update strategy rules', () => {
  const ds: any = { metadata: meta(), spec: { template: template({ app: 'a' }), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } } };
  defaultDaemonSet(ds);
  assert.deepEqual(msgs(daemonsets.validate!(ds)), [
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    'spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0',
  ]);
});

test('job: restartPolicy must be OnFailure or Never; generated selector passes', () => {
  const job: any = { metadata: meta('pi'), spec: { template: template(undefined) } };
  defaultJob(job);
  generateSelector(job);
  assert.deepEqual(msgs(jobs.validate!(job)), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']);
  job.spec.template.spec.restartPolicy = 'Never';
  assert.deepEqual(msgs(jobs.validate!(job)), []);
});

test('job: pod failure policy rules', () => {
  const job: any = {
    metadata: meta('pi'),
    spec: {
      template: template(undefined, { restartPolicy: 'Never' }),
      podFailurePolicy: { rules: [{ action: 'Retry', onExitCodes: { operator: 'In', values: [3, 0, 1] } }, { action: 'Ignore' }] },
    },
  };
  defaultJob(job);
  generateSelector(job);
  assert.deepEqual(msgs(jobs.validate!(job)), [
    'spec.podFailurePolicy.rules[0].action: Unsupported value: "Retry": supported values: "Count", "FailIndex", "FailJob", "Ignore"',
    'spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator',
    'spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []int32{3, 0, 1}: must be ordered',
    'spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
  ]);
});

test('job: an indexed job name must leave room for the index', () => {
  const job: any = { metadata: meta('x'.repeat(62)), spec: { completionMode: 'Indexed', completions: 10, template: template(undefined, { restartPolicy: 'Never' }) } };
  defaultJob(job);
  generateSelector(job);
  assert.deepEqual(msgs(jobs.validate!(job)), [`metadata.name: Invalid value: "${'x'.repeat(62)}": will not able to create pod with invalid DNS label: ${'x'.repeat(62)}-9`]);
});

test('job update: completions and selector are immutable', () => {
  const old: any = { metadata: meta('pi'), spec: { completions: 1, template: template(undefined, { restartPolicy: 'Never' }) } };
  defaultJob(old);
  generateSelector(old);
  const next = structuredClone(old);
  next.spec.completions = 2;
  assert.deepEqual(msgs(jobs.validateUpdate!(next, old)), ['spec.completions: Invalid value: 2: field is immutable']);
});

test('cronjob: schedule, concurrency policy, time zone, name length and the job template', () => {
  const cj: any = {
    metadata: meta('c'.repeat(53)),
    spec: { schedule: '*/5 * * *', timeZone: 'Mars/Olympus', concurrencyPolicy: 'Sometimes', jobTemplate: { spec: { template: template(undefined) } } },
  };
  defaultCronJob(cj);
  assert.deepEqual(msgs(cronjobs.validate!(cj)), [
    'spec.schedule: Invalid value: "*/5 * * *": expected exactly 5 fields, found 4: [*/5 * * *]',
    'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    `metadata.name: Invalid value: "${'c'.repeat(53)}": must be no more than 52 characters`,
  ]);
});

test('cron schedules parse as robfig/cron ParseStandard', () => {
  assert.equal(cronScheduleError('0 3 * * 1-5'), undefined);
  assert.equal(cronScheduleError('@hourly'), undefined);
  assert.equal(cronScheduleError('@every 1h30m'), undefined);
  assert.equal(cronScheduleError('0 0 * JAN,feb SUN'), undefined);
  assert.equal(cronScheduleError('61 * * * *'), 'end of range (61) above maximum (59): 61');
  assert.equal(cronScheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
  assert.equal(cronScheduleError('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
  assert.equal(cronScheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
  assert.equal(cronScheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
  assert.equal(cronScheduleError('@sometimes'), 'unrecognized descriptor: @sometimes');
  assert.equal(cronScheduleError(''), 'empty spec string');
});

test('an @every schedule is refused with time.ParseDuration\'s own words', () => {
  assert.equal(cronScheduleError('@every 1.5m'), undefined);
  assert.equal(cronScheduleError('@every 5x'), 'failed to parse duration @every 5x: time: unknown unit "x" in duration "5x"');
  assert.equal(cronScheduleError('@every 5'), 'failed to parse duration @every 5: time: missing unit in duration "5"');
  assert.equal(cronScheduleError('@every .s'), 'failed to parse duration @every .s: time: invalid duration ".s"');
});

test('replicationcontroller: selector and template required', () => {
  const rc: any = { metadata: meta(), spec: { replicas: -2 } };
  defaultReplicationController(rc);
  assert.deepEqual(msgs(replicationcontrollers.validate!(rc)), [
    'spec.selector: Required value',
    'spec.replicas: Invalid value: -2: must be greater than or equal to 0',
    'spec.template: Required value',
  ]);
});

test('workload warnings: a non-DNS-label name and the pod template warnings, on changes', () => {
  const warnings: string[] = [];
  const ctx: any = { warn: (m: string) => warnings.push(m) };
  const d = deployment({
    selector: { matchLabels: { app: 'a' } },
    template: template({ app: 'a' }, { nodeSelector: { 'beta.kubernetes.io/os': 'windows' } }),
  });
  d.metadata.name = 'web.v1';
  deployments.warnCreate!(d, ctx);
  assert.deepEqual(warnings, [
    "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    'spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead',
  ]);
  warnings.length = 0;
  // On update only a spec change warns, and without the name warning.
  deployments.warnUpdate!(structuredClone(d), d, ctx);
  assert.deepEqual(warnings, []);
  const scaled = structuredClone(d);
  scaled.spec.replicas = 3;
  deployments.warnUpdate!(scaled, d, ctx);
  assert.deepEqual(warnings, ['spec.template.spec.nodeSelector[beta.kubernetes.io/os]: deprecated since v1.14; use "kubernetes.io/os" instead']);
});
