/** CPU/memory → runtime resources on Windows (HCS) and Linux (CFS) (src/os/cpu-limits.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  linuxContainerResources, milliCPUToQuota, milliCPUToShares, quotaToMilliCPU, sharesToCgroupV2Weight, sharesToMilliCPU,
  toBytes, toMilliCPU, windowsContainerResources, windowsCpuMaximum, windowsCpuMaximumToMilliCPU,
} from '../../src/os/cpu-limits.js';

describe('inputs', () => {
  test('CPU quantities become MilliValue (rounded up); numbers are milli-CPU', () => {
    assert.equal(toMilliCPU('500m'), 500n);
    assert.equal(toMilliCPU('2'), 2000n);
    assert.equal(toMilliCPU('0.5'), 500n);
    assert.equal(toMilliCPU('100u'), 1n);
    assert.equal(toMilliCPU(250), 250n);
  });
  test('memory quantities become Value()', () => {
    assert.equal(toBytes('512Mi'), 536870912n);
    assert.equal(toBytes('1G'), 1000000000n);
  });
});

describe('Windows CpuMaximum = clamp(10 * limitMilli / logicalCPUs, 1, 10000)', () => {
  test('the notes §4.1 examples', () => {
    assert.equal(windowsCpuMaximum('500m', 4), 1250);
    assert.equal(windowsCpuMaximum('1', 2), 5000);
    assert.equal(windowsCpuMaximum('2', 2), 10000);
    assert.equal(windowsCpuMaximum('8', 4), 10000);
    assert.equal(windowsCpuMaximum('1m', 16), 1);
  });
  test('Go integer division truncates', () => {
    assert.equal(windowsCpuMaximum('1', 3), 3333);
    assert.equal(windowsCpuMaximum('333m', 7), 475);
  });
  test('zero or absent limit sets nothing', () => {
    assert.equal(windowsCpuMaximum('0', 4), undefined);
    assert.equal(windowsCpuMaximum(undefined, 4), undefined);
  });
  test('logicalCPUs must be positive', () => {
    assert.throws(() => windowsCpuMaximum('1', 0), RangeError);
  });
  test('reverse mapping CpuMaximum * ProcessorCount / 10', () => {
    assert.equal(windowsCpuMaximumToMilliCPU(1250, 4), 500);
    assert.equal(windowsCpuMaximumToMilliCPU(3333, 3), 999);
  });
  test('requests are not passed; memory limit only when non-zero', () => {
    assert.deepEqual(windowsContainerResources({ requests: { cpu: '1', memory: '1Gi' } }, 4), {});
    assert.deepEqual(windowsContainerResources({ requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '512Mi' } }, 4),
      { CpuMaximum: 1250, MemoryLimitInBytes: 536870912 });
    assert.deepEqual(windowsContainerResources({ limits: { cpu: '0', memory: '0' } }, 4), {});
  });
});

describe('Linux MilliCPUToShares', () => {
  test('0 → 2 (MinShares)', () => assert.equal(milliCPUToShares(0), 2));
  test('m * 1024 / 1000, truncating', () => {
    assert.equal(milliCPUToShares('100m'), 102);
    assert.equal(milliCPUToShares('250m'), 256);
    assert.equal(milliCPUToShares('1'), 1024);
    assert.equal(milliCPUToShares('1500m'), 1536);
  });
  test('below 2 clamps to 2', () => assert.equal(milliCPUToShares('1m'), 2));
  test('above 262144 clamps to MaxShares', () => {
    assert.equal(milliCPUToShares('256'), 262144);
    assert.equal(milliCPUToShares('300'), 262144);
  });
});

describe('Linux MilliCPUToQuota (period 100000, min 1000)', () => {
  test('0 → 0 (no quota)', () => assert.equal(milliCPUToQuota(0), 0));
  test('m * period / 1000', () => {
    assert.equal(milliCPUToQuota('500m'), 50000);
    assert.equal(milliCPUToQuota('2'), 200000);
    assert.equal(milliCPUToQuota('15m'), 1500);
  });
  test('minimum 1000 µs', () => {
    assert.equal(milliCPUToQuota('1m'), 1000);
    assert.equal(milliCPUToQuota('9m'), 1000);
  });
  test('custom period', () => assert.equal(milliCPUToQuota('500m', 50000), 25000));
});

describe('Linux reverse conversions', () => {
  test('sharesToMilliCPU rounds up; below 2 → 0', () => {
    assert.equal(sharesToMilliCPU(102), 100);
    assert.equal(sharesToMilliCPU(2), 2);
    assert.equal(sharesToMilliCPU(1), 0);
  });
  test('quotaToMilliCPU: -1 → 0, else quota*1000/period', () => {
    assert.equal(quotaToMilliCPU(-1, 100000), 0);
    assert.equal(quotaToMilliCPU(50000, 100000), 500);
  });
  test('cgroup v2 weight (runtime conversion)', () => {
    assert.equal(sharesToCgroupV2Weight(2), 1);
    assert.equal(sharesToCgroupV2Weight(1024), 39);
    assert.equal(sharesToCgroupV2Weight(262144), 10000);
    assert.equal(sharesToCgroupV2Weight(0), 0);
  });
});

describe('calculateLinuxResources', () => {
  test('request and limit', () => {
    assert.deepEqual(linuxContainerResources({ requests: { cpu: '250m' }, limits: { cpu: '500m', memory: '128Mi' } }),
      { CpuShares: 256, MemoryLimitInBytes: 134217728, CpuQuota: 50000, CpuPeriod: 100000 });
  });
  test('limit only → shares from the limit', () => {
    assert.deepEqual(linuxContainerResources({ limits: { cpu: '1' } }), { CpuShares: 1024, CpuQuota: 100000, CpuPeriod: 100000 });
  });
  test('an explicit request of 0 with a limit → 2 shares (v1.32 pointer semantics)', () => {
    assert.deepEqual(linuxContainerResources({ requests: { cpu: '0' }, limits: { cpu: '1' } }), { CpuShares: 2, CpuQuota: 100000, CpuPeriod: 100000 });
  });
  test('nothing set → 2 shares, quota 0 (unlimited), period still set', () => {
    assert.deepEqual(linuxContainerResources({}), { CpuShares: 2, CpuQuota: 0, CpuPeriod: 100000 });
  });
  test('--cpu-cfs-quota=false → no quota/period', () => {
    assert.deepEqual(linuxContainerResources({ limits: { cpu: '1' } }, { cpuCFSQuota: false }), { CpuShares: 1024 });
  });
  test('disabled quota → -1', () => {
    assert.deepEqual(linuxContainerResources({ limits: { cpu: '2' } }, { disableCPUQuota: true }), { CpuShares: 2048, CpuQuota: -1, CpuPeriod: 100000 });
  });
});
