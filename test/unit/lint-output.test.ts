/**
 * The report formats, exit codes, rule selection and suppression of
 * `winkube lint`. The SARIF log is validated against the official SARIF
 * 2.1.0 schema (test/fixtures/sarif-schema-2.1.0.json, from
 * https://github.com/oasis-tcs/sarif-spec/blob/main/sarif-2.1/schema/sarif-schema-2.1.0.json,
 * a JSON Schema draft-04 document, hence ajv 6 with the draft-04 meta-schema).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { parseManifests } from '../../src/lint/parse-manifests.js';
import { lint, UnknownRuleError } from '../../src/lint/engine.js';
import { describePools } from '../../src/lint/cluster-description.js';
import { formatSARIF } from '../../src/lint/format-sarif.js';
import { formatJUnit } from '../../src/lint/format-junit.js';
import { formatHuman } from '../../src/lint/format-human.js';
import { exitCode } from '../../src/lint/exit-code.js';
import type { Finding } from '../../src/lint/types.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const require = createRequire(import.meta.url);

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  annotations: {}
spec:
  nodeSelector: {kubernetes.io/os: windows}
  securityContext: {runAsUser: 1000}
  containers:
  - {name: app, image: mcr.microsoft.com/windows/nanoserver:ltsc2022}
  - {name: proxy, image: nginx:1.27}
`;

const run = (text: string, opts = {}): Finding[] => {
  const p = parseManifests(text, 'pod.yaml');
  return lint(p.manifests, p.problems, describePools(), opts);
};

test('findings name the rule, severity, object, field, message and fix, sorted by file, line, rule', () => {
  assert.deepEqual(run(POD).map((f) => [f.rule, f.severity, `${f.object.kind} ${f.object.namespace}/${f.object.name}`, f.path]), [
    ['WK103', 'error', 'Pod shop/web', 'spec.containers[1].image'],
    ['WK108', 'warning', 'Pod shop/web', 'spec.securityContext.runAsUser'],
  ]);
});

test('--enable / --disable select rules; an unknown id is refused', () => {
  assert.deepEqual(run(POD, { enable: ['WK108'] }).map((f) => f.rule), ['WK108']);
  assert.deepEqual(run(POD, { disable: ['WK103'] }).map((f) => f.rule), ['WK108']);
  assert.throws(() => run(POD, { enable: ['WK999'] }), UnknownRuleError);
});

test('winkube.io/lint-ignore on the object suppresses the ids it lists, * all of them', () => {
  assert.deepEqual(run(POD.replace('annotations: {}', 'annotations: {winkube.io/lint-ignore: "WK103, WK200"}')).map((f) => f.rule), ['WK108']);
  assert.deepEqual(run(POD.replace('annotations: {}', 'annotations: {winkube.io/lint-ignore: "*"}')), []);
});

test('exit codes: 2 with an error, 1 with warnings at or above --fail-on, 0 otherwise', () => {
  const all = run(POD);
  const warnings = all.filter((f) => f.severity === 'warning');
  assert.equal(exitCode(all, 'warning'), 2);
  assert.equal(exitCode(warnings, 'warning'), 1);
  assert.equal(exitCode(warnings, 'error'), 0);
  assert.equal(exitCode(all, 'none'), 0);
  assert.equal(exitCode([], 'info'), 0);
});

test('human output: plain without a terminal, coloured severities with one', () => {
  const f = run(POD, { enable: ['WK108'] });
  assert.equal(formatHuman(f, false),
    'pod.yaml:1: warning WK108 Pod shop/web spec.securityContext.runAsUser: securityContext.runAsUser is not supported on Windows (no numeric user IDs)\n'
    + '  fix: remove it and set securityContext.windowsOptions.runAsUserName (ContainerUser or ContainerAdministrator)\n'
    + '1 finding: 0 errors, 1 warning, 0 info\n');
  assert.equal(formatHuman(f, true).split('\n')[0],
    'pod.yaml:1: \x1b[33mwarning\x1b[0m WK108 Pod shop/web spec.securityContext.runAsUser: securityContext.runAsUser is not supported on Windows (no numeric user IDs)');
});

test('SARIF output validates against the SARIF 2.1.0 schema and locates each result', () => {
  const findings = run(`${POD}---\nfoo: [\n`);
  const log = JSON.parse(formatSARIF(findings));
  const ajv = new Ajv({ schemaId: 'id', allErrors: true });
  ajv.addMetaSchema(require('ajv/lib/refs/json-schema-draft-04.json'));
  const schema = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'sarif-schema-2.1.0.json'), 'utf8'));
  const valid = ajv.validate(schema, log);
  assert.equal(valid, true, ajv.errorsText());
  const run0 = log.runs[0];
  assert.deepEqual(run0.tool.driver.rules.map((r: { id: string }) => r.id).slice(0, 3), ['WK000', 'WK100', 'WK101']);
  assert.deepEqual(run0.results.map((r: { ruleId: string; level: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }) =>
    [r.ruleId, r.level, r.locations[0]?.physicalLocation.artifactLocation.uri, r.locations[0]?.physicalLocation.region.startLine]), [
    ['WK103', 'error', 'pod.yaml', 1], ['WK108', 'warning', 'pod.yaml', 1], ['WK000', 'error', 'pod.yaml', 15],
  ]);
  // A schema that accepts anything would prove nothing: a broken log must fail.
  assert.equal(ajv.validate(schema, { ...log, version: '2.0.0' }), false);
});

test('JUnit output: a testsuite per file, a failure per error or warning', () => {
  const findings = run(POD);
  assert.equal(formatJUnit(findings, ['pod.yaml', 'empty.yaml']), `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="winkube lint" tests="2" failures="2">
  <testsuite name="pod.yaml" tests="2" failures="2" errors="0">
    <testcase classname="pod.yaml" name="WK103 Pod shop/web spec.containers[1].image">
      <failure type="error" message="image nginx:1.27 has no windows platform, and the pod targets Windows nodes">pod.yaml:1: image nginx:1.27 has no windows platform, and the pod targets Windows nodes
fix: use a Windows (or multi-OS) image for this container, or run it in a separate Linux pod</failure>
    </testcase>
    <testcase classname="pod.yaml" name="WK108 Pod shop/web spec.securityContext.runAsUser">
      <failure type="warning" message="securityContext.runAsUser is not supported on Windows (no numeric user IDs)">pod.yaml:1: securityContext.runAsUser is not supported on Windows (no numeric user IDs)
fix: remove it and set securityContext.windowsOptions.runAsUserName (ContainerUser or ContainerAdministrator)</failure>
    </testcase>
  </testsuite>
  <testsuite name="empty.yaml" tests="0" failures="0" errors="0">
  </testsuite>
</testsuites>
`);
});
