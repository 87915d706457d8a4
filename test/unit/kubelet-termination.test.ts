import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterSignal, oomKillAfterMs, podGracePeriodSeconds, specGracePeriodSeconds, stopSignal, WINDOWS_SHUTDOWN_EXIT, type StopInput,
} from '../../src/node/kubelet/termination.js';
import { containerScript } from '../../src/node/kubelet/script.js';

/** Graceful termination and the OOM kill as input/output tables (no process, no timer). */

test('grace period: a deletion\'s own, else terminationGracePeriodSeconds, else 30s; a probe\'s overrides the spec\'s', () => {
  const cases: { name: string; pod: { metadata: { deletionGracePeriodSeconds?: number }; spec: Record<string, unknown> }; want: number }[] = [
    { name: 'default', pod: { metadata: {}, spec: {} }, want: 30 },
    { name: 'spec', pod: { metadata: {}, spec: { terminationGracePeriodSeconds: 5 } }, want: 5 },
    { name: 'delete --grace-period=1', pod: { metadata: { deletionGracePeriodSeconds: 1 }, spec: { terminationGracePeriodSeconds: 5 } }, want: 1 },
    { name: 'delete --now / --force (0)', pod: { metadata: { deletionGracePeriodSeconds: 0 }, spec: {} }, want: 0 },
  ];
  for (const tc of cases) assert.equal(podGracePeriodSeconds(tc.pod), tc.want, tc.name);
  assert.equal(specGracePeriodSeconds({}), 30);
  assert.equal(specGracePeriodSeconds({ terminationGracePeriodSeconds: 12 }), 12);
  assert.equal(specGracePeriodSeconds({ terminationGracePeriodSeconds: 12 }, 3), 3);
});

test('stopping a container: SIGTERM, then the kill when the grace period (or the runtime\'s stop timeout) ends', () => {
  const base: StopInput = { os: 'linux', graceSeconds: 30, application: false };
  const cases: { name: string; input: StopInput; reacts: boolean; exited: boolean; signal: string; want: ReturnType<typeof afterSignal> }[] = [
    { name: 'Linux shell ignoring SIGTERM: SIGKILL (137) after the grace period', input: base, reacts: false, exited: false, signal: 'SIGTERM',
      want: { kill: { afterMs: 30_000, exitCode: 137 } } },
    { name: 'a TERM trap still running: killed if it outlives the grace period', input: { ...base, graceSeconds: 10 }, reacts: true, exited: false, signal: 'SIGTERM',
      want: { kill: { afterMs: 10_000, exitCode: 137 } } },
    { name: 'already exited on SIGTERM: nothing more', input: base, reacts: true, exited: true, signal: 'SIGTERM', want: {} },
    { name: 'grace period 0: killed at once', input: { ...base, graceSeconds: 0 }, reacts: false, exited: false, signal: 'SIGTERM',
      want: { kill: { afterMs: 0, exitCode: 137 } } },
    { name: 'scripted sigterm "exit": exits 0 at once, no SIGTERM', input: { ...base, sigterm: 'exit' }, reacts: false, exited: false, signal: 'exit', want: { exitNow: 0 } },
    { name: 'scripted sigterm "ignore": runs out the grace period', input: { ...base, sigterm: 'ignore' }, reacts: false, exited: false, signal: 'ignored',
      want: { kill: { afterMs: 30_000, exitCode: 137 } } },
    { name: 'Windows console program without a handler: CTRL_SHUTDOWN_EVENT ends it at once', input: { ...base, os: 'windows' }, reacts: false, exited: false, signal: 'SIGTERM',
      want: { exitNow: WINDOWS_SHUTDOWN_EXIT } },
    { name: 'Windows application: TerminateProcess (exit 1) after the grace period', input: { ...base, os: 'windows', application: true }, reacts: false, exited: false, signal: 'SIGTERM',
      want: { kill: { afterMs: 30_000, exitCode: 1 } } },
    { name: 'Docker on Windows: its fixed stop timeout, whatever the grace period', input: { ...base, os: 'windows', application: true, graceSeconds: 60, stopTimeoutSeconds: 10 },
      reacts: false, exited: false, signal: 'SIGTERM', want: { kill: { afterMs: 10_000, exitCode: 1 } } },
    { name: 'Windows, scripted to ignore: the grace period, then exit 1', input: { ...base, os: 'windows', sigterm: 'ignore' }, reacts: false, exited: false, signal: 'ignored',
      want: { kill: { afterMs: 30_000, exitCode: 1 } } },
  ];
  for (const tc of cases) {
    assert.equal(stopSignal(tc.input), tc.signal, tc.name);
    assert.deepEqual(afterSignal(tc.input, tc.reacts, tc.exited), tc.want, tc.name);
  }
});

test('OOM kill: scripted memory over limits.memory kills a Linux container; Windows never', () => {
  const script = (s: object) => containerScript({ 'winkube.io/script': JSON.stringify({ app: s }) }, 'app');
  const limited = (memory: string) => ({ name: 'app', resources: { limits: { memory } } });
  const cases: { name: string; os: 'linux' | 'windows'; script: object | undefined; container: Record<string, unknown>; want: number | undefined }[] = [
    { name: 'over the limit, at once', os: 'linux', script: { memory: '600Mi' }, container: limited('512Mi'), want: 0 },
    { name: 'over the limit after 2.5s', os: 'linux', script: { memory: '600Mi', memoryAfterSeconds: 2.5 }, container: limited('512Mi'), want: 2_500 },
    { name: 'exactly the limit', os: 'linux', script: { memory: '512Mi' }, container: limited('512Mi'), want: undefined },
    { name: 'no limit', os: 'linux', script: { memory: '600Mi' }, container: { name: 'app' }, want: undefined },
    { name: 'decimal units', os: 'linux', script: { memory: '600M' }, container: limited('512Mi'), want: 0 },
    { name: 'no scripted memory', os: 'linux', script: undefined, container: limited('1Mi'), want: undefined },
    { name: 'Windows pages instead', os: 'windows', script: { memory: '600Mi' }, container: limited('512Mi'), want: undefined },
  ];
  for (const tc of cases) assert.equal(oomKillAfterMs(tc.os, tc.script && script(tc.script), tc.container), tc.want, tc.name);
});
