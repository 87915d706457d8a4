import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../src/node/kubelet/clock.js';
import type { Running } from '../../src/node/kubelet/container-state.js';
import { probeStep, ProbeWorker, type ProbeCounters, type ProbeKind, type ProbeOutcome, type ProbeResult, type ProbeSpec } from '../../src/node/kubelet/prober.js';

/** Probe results as input/output tables, and probe workers on a clock that only the test moves. */
const ok: ProbeResult = { ok: true, output: '' };
const bad: ProbeResult = { ok: false, output: 'HTTP probe failed with statuscode: 500' };

/** Runs results through probeStep from fresh counters, keeping ready/started as a container would. */
function run(kind: ProbeKind, spec: ProbeSpec, results: ProbeResult[], state = { started: true, ready: false }, hasReadinessProbe = kind === 'Readiness') {
  let counters: ProbeCounters = { successes: 0, failures: 0 };
  const trace: string[] = [];
  for (const r of results) {
    const o = probeStep(kind, spec, { name: 'app', hasReadinessProbe }, state, counters, r);
    if (!o) { trace.push('skipped'); continue; }
    counters = o.counters;
    if (o.started) state.started = true;
    if (o.ready !== undefined) state.ready = o.ready;
    trace.push([o.unhealthy ? 'unhealthy' : 'ok', o.ready !== undefined ? `ready=${o.ready}` : '', o.started ? 'started' : '', o.kill ? 'kill' : ''].filter(Boolean).join(' '));
  }
  return trace;
}

test('probeStep: thresholds, readiness flip, liveness and startup kills, startup gating', () => {
  const cases: { name: string; kind: ProbeKind; spec: ProbeSpec; results: ProbeResult[]; state?: { started: boolean; ready: boolean }; want: string[] }[] = [
    { name: 'readiness: ready on the first success (successThreshold 1)', kind: 'Readiness', spec: {}, results: [ok, ok], want: ['ok ready=true', 'ok'] },
    { name: 'readiness: successThreshold 3', kind: 'Readiness', spec: { successThreshold: 3 }, results: [ok, ok, bad, ok, ok, ok],
      want: ['ok', 'ok', 'unhealthy', 'ok', 'ok', 'ok ready=true'] },
    { name: 'readiness: unready after failureThreshold failures in a row, ready again after a success', kind: 'Readiness', spec: { failureThreshold: 2 },
      state: { started: true, ready: true }, results: [bad, ok, bad, bad, bad, ok], want: ['unhealthy', 'ok', 'unhealthy', 'unhealthy ready=false', 'unhealthy', 'ok ready=true'] },
    { name: 'liveness: killed at the third failure in a row (default failureThreshold)', kind: 'Liveness', spec: {}, results: [bad, bad, ok, bad, bad, bad],
      want: ['unhealthy', 'unhealthy', 'ok', 'unhealthy', 'unhealthy', 'unhealthy kill'] },
    { name: 'liveness: failureThreshold 1', kind: 'Liveness', spec: { failureThreshold: 1 }, results: [ok, bad], want: ['ok', 'unhealthy kill'] },
    { name: 'liveness and readiness wait for the startup probe', kind: 'Liveness', spec: {}, state: { started: false, ready: false }, results: [bad, bad, bad, bad], want: ['skipped', 'skipped', 'skipped', 'skipped'] },
    { name: 'startup: started (and ready, without a readiness probe) on success; no more startup probes after', kind: 'Startup', spec: {},
      state: { started: false, ready: false }, results: [bad, ok, bad], want: ['unhealthy', 'ok ready=true started', 'skipped'] },
    { name: 'startup: failureThreshold failures kill the container', kind: 'Startup', spec: { failureThreshold: 2 }, state: { started: false, ready: false },
      results: [bad, bad], want: ['unhealthy', 'unhealthy kill'] },
  ];
  for (const tc of cases) assert.deepEqual(run(tc.kind, tc.spec, tc.results, tc.state ? { ...tc.state } : undefined), tc.want, tc.name);
});

test('probeStep: the Unhealthy and Killing messages, and the probe-level grace period', () => {
  const o = probeStep('Liveness', { failureThreshold: 1, terminationGracePeriodSeconds: 5 }, { name: 'web', hasReadinessProbe: false }, { started: true, ready: true },
    { successes: 0, failures: 0 }, { ok: false, output: 'dial tcp 10.244.1.2:8080: connect: connection refused' });
  assert.deepEqual(o, {
    counters: { successes: 0, failures: 1 },
    unhealthy: 'Liveness probe failed: dial tcp 10.244.1.2:8080: connect: connection refused',
    kill: { message: 'Container web failed liveness probe, will be restarted', probeGraceSeconds: 5 },
  });
  const s = probeStep('Startup', { failureThreshold: 1 }, { name: 'web', hasReadinessProbe: true }, { started: false, ready: false }, { successes: 0, failures: 0 }, bad);
  assert.deepEqual(s?.kill, { message: 'Container web failed startup probe, will be restarted' });
  // With a readiness probe, a successful startup probe leaves readiness to it.
  const started = probeStep('Startup', {}, { name: 'web', hasReadinessProbe: true }, { started: false, ready: false }, { successes: 0, failures: 0 }, ok);
  assert.deepEqual(started, { counters: { successes: 1, failures: 0 }, started: true });
});

/** A container for a probe worker: results by probe time (ms since start), outcomes recorded with their time. */
function target(clock: FakeClock, results: (at: number, kind: ProbeKind) => ProbeResult, started = true) {
  const t0 = clock.now();
  const state: Running = { kind: 'running', startedAt: new Date(t0).toISOString(), startedAtMs: t0, started, ready: false };
  const seen: { at: number; kind: ProbeKind; outcome: ProbeOutcome }[] = [];
  const probed: number[] = [];
  let alive = true;
  return {
    state, seen, probed, kill: () => { alive = false; },
    target: {
      running: () => (alive ? state : undefined),
      probe: (kind: ProbeKind) => { probed.push(clock.now() - t0); return results(clock.now() - t0, kind); },
      apply: (kind: ProbeKind, outcome: ProbeOutcome) => {
        seen.push({ at: clock.now() - t0, kind, outcome });
        if (outcome.started) state.started = true;
        if (outcome.ready !== undefined) state.ready = outcome.ready;
      },
    },
  };
}

test('ProbeWorker: first probe after initialDelaySeconds, then every periodSeconds, on the injected clock', () => {
  const clock = new FakeClock();
  const c = target(clock, () => ok);
  const w = new ProbeWorker(clock, 'Readiness', { initialDelaySeconds: 5, periodSeconds: 3 }, { name: 'app', hasReadinessProbe: true }, c.target);
  w.start();
  clock.step(4_999);
  assert.deepEqual(c.probed, []);
  clock.step(10_001);
  assert.deepEqual(c.probed, [5_000, 8_000, 11_000, 14_000]);
  assert.equal(c.state.ready, true);
  w.stop();
  clock.step(60_000);
  assert.equal(c.probed.length, 4);
  assert.equal(clock.waiting, 0);
});

test('ProbeWorker: liveness failing from 30s is killed at the third failure; nothing is probed once the container is gone', () => {
  const clock = new FakeClock();
  const c = target(clock, (at) => (at < 30_000 ? ok : bad));
  const w = new ProbeWorker(clock, 'Liveness', { periodSeconds: 10 }, { name: 'app', hasReadinessProbe: false }, c.target);
  w.start();
  clock.step(50_000);
  const kills = c.seen.filter((s) => s.outcome.kill).map((s) => s.at);
  assert.deepEqual(kills, [50_000]);
  assert.deepEqual(c.seen.filter((s) => s.outcome.unhealthy).map((s) => s.at), [30_000, 40_000, 50_000]);
  c.kill();
  clock.step(100_000);
  assert.deepEqual(c.probed, [0, 10_000, 20_000, 30_000, 40_000, 50_000]);
  w.stop();
});

test('ProbeWorker: readiness does not run before the startup probe passes, then flips with the results', () => {
  const clock = new FakeClock();
  const c = target(clock, (at, kind) => (kind === 'Startup' || (at >= 20_000 && at < 40_000) ? ok : bad), false);
  const startup = new ProbeWorker(clock, 'Startup', { initialDelaySeconds: 15, periodSeconds: 5 }, { name: 'app', hasReadinessProbe: true }, c.target);
  const readiness = new ProbeWorker(clock, 'Readiness', { periodSeconds: 5, failureThreshold: 1 }, { name: 'app', hasReadinessProbe: true }, c.target);
  startup.start(); readiness.start();
  clock.step(14_999);
  assert.equal(c.seen.length, 0, 'readiness waits for startup: no probe, no outcome');
  clock.step(1);
  // Both are due at 15s: the startup probe passes, then readiness (failing) runs at once.
  assert.deepEqual(c.seen.map((s) => `${s.at} ${s.kind}`), ['15000 Startup', '15000 Readiness']);
  assert.equal(c.state.started, true);
  assert.equal(c.state.ready, false);
  clock.step(30_000);
  const flips = c.seen.filter((s) => s.outcome.ready !== undefined).map((s) => `${s.at} ready=${s.outcome.ready}`);
  assert.deepEqual(flips, ['20000 ready=true', '40000 ready=false']);
  startup.stop(); readiness.stop();
});
