/** `winkube doctor`'s report: severity order, exit codes, and the human format with and without colour. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diagnose, doctorExitCode } from '../../src/doctor/diagnose.js';
import { formatDoctorHuman } from '../../src/doctor/format-human.js';
import type { DoctorFinding } from '../../src/doctor/types.js';
import { node, pod, snapshot } from '../helpers/doctor-cluster.js';

const finding = (severity: DoctorFinding['severity'], check: string, name: string): DoctorFinding => ({
  check, severity, object: { apiVersion: 'v1', kind: 'Node', name }, evidence: [`evidence of ${name}`],
  message: `${check} on ${name}`, explanation: 'why', fix: 'fix it', reference: 'https://example.com/doc',
});

test('exit codes: 2 with an error, 1 with a warning, 0 with information only or nothing', () => {
  assert.equal(doctorExitCode([finding('info', 'a', 'n'), finding('error', 'b', 'n')]), 2);
  assert.equal(doctorExitCode([finding('info', 'a', 'n'), finding('warning', 'b', 'n')]), 1);
  assert.equal(doctorExitCode([finding('info', 'a', 'n')]), 0);
  assert.equal(doctorExitCode([]), 0);
});

test('diagnose: errors first, then warnings, then information, each in check order', () => {
  const c = snapshot({
    nodes: [node('lin-1', 'linux'), node('win-1', 'windows', { ready: 'False', reason: 'KubeletNotReady', message: 'container runtime network not ready' })],
    pods: [pod('web', 'win-1', { nodeSelector: { 'kubernetes.io/os': 'windows' }, dnsPolicy: 'ClusterFirstWithHostNet' })],
  });
  assert.deepEqual(diagnose(c).map((f) => `${f.severity} ${f.check} ${f.object.name}`), [
    'error windows-node-not-ready win-1',
    'warning windows-node-untainted win-1',
    'warning windows-dns-policy web',
    'info windows-pods-icmp ',
  ]);
  assert.deepEqual(diagnose(snapshot()), [], 'a tainted, ready, empty mixed cluster');
});

test('human report: grouped under headings with evidence, explanation, fix and reference; colour only when asked', () => {
  const findings = [finding('error', 'windows-node-not-ready', 'win-1'), finding('info', 'windows-pods-icmp', 'win-2')];
  assert.equal(formatDoctorHuman('https://10.0.0.1:6443', findings, ['GET /apis/node.k8s.io/v1/runtimeclasses: forbidden'], false), `winkube doctor: https://10.0.0.1:6443
not read: GET /apis/node.k8s.io/v1/runtimeclasses: forbidden

Errors (1)
error windows-node-not-ready Node win-1: windows-node-not-ready on win-1
  evidence: evidence of win-1
  why: why
  fix: fix it
  see: https://example.com/doc

Info (1)
info windows-pods-icmp Node win-2: windows-pods-icmp on win-2
  evidence: evidence of win-2
  why: why
  fix: fix it
  see: https://example.com/doc

2 findings: 1 error, 0 warnings, 1 info
`);
  const coloured = formatDoctorHuman('x', [finding('warning', 'c', 'n')], [], true).split('\n');
  assert.deepEqual(coloured.slice(2, 4), ['\x1b[33mWarnings (1)\x1b[0m', '\x1b[33mwarning\x1b[0m c Node n: c on n']);
  assert.equal(formatDoctorHuman('x', [], [], false), 'winkube doctor: x\n\n0 findings: 0 errors, 0 warnings, 0 info\n');
});
