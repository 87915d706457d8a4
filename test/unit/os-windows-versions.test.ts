/** Windows versions, builds, node identity and hcsshim's process-isolation rule (src/os/windows-versions.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_WINDOWS_VERSION, hypervIsolationCompatible, lookupWindowsVersion, parseWindowsBuild, processIsolationCompatible,
  windowsBuildLabel, windowsKernelVersion, windowsNodeIdentity, windowsOSVersion, windowsVersionByBuild,
  windowsVersionByBuildLabel, windowsVersionByTag, WINDOWS_VERSIONS,
} from '../../src/os/windows-versions.js';

describe('version table', () => {
  test('tags map to the documented builds', () => {
    assert.deepEqual(WINDOWS_VERSIONS.map((w) => [w.tag, w.build]), [
      ['ltsc2019', 17763], ['ltsc2022', 20348], ['ltsc2025', 26100],
      ['1809', 17763], ['1903', 18362], ['1909', 18363], ['2004', 19041], ['20H2', 19042],
    ]);
  });
  test('osImage is the ProductName a Datacenter node reports', () => {
    assert.equal(windowsVersionByTag('ltsc2019')!.osImage, 'Windows Server 2019 Datacenter');
    assert.equal(windowsVersionByTag('ltsc2022')!.osImage, 'Windows Server 2022 Datacenter');
    assert.equal(windowsVersionByTag('ltsc2025')!.osImage, 'Windows Server 2025 Datacenter');
    assert.equal(windowsVersionByTag('ltsc2025')!.osImageUnverified, true);
    assert.equal(windowsVersionByTag('ltsc2022')!.osImageUnverified, undefined);
  });
  test('the default node version is ltsc2022', () => {
    assert.equal(DEFAULT_WINDOWS_VERSION.tag, 'ltsc2022');
  });
});

describe('lookups', () => {
  test('by tag is case-insensitive; unknown tags are undefined', () => {
    assert.equal(windowsVersionByTag('LTSC2022')!.build, 20348);
    assert.equal(windowsVersionByTag('20h2')!.build, 19042);
    assert.equal(windowsVersionByTag('ltsc2016'), undefined);
  });
  test('by build prefers the LTSC entry for a shared build', () => {
    assert.equal(windowsVersionByBuild(17763)!.tag, 'ltsc2019');
    assert.equal(windowsVersionByBuild(19041)!.tag, '2004');
    assert.equal(windowsVersionByBuild(22000), undefined);
  });
  test('by windows-build label value 10.0.<build> only', () => {
    assert.equal(windowsVersionByBuildLabel('10.0.17763')!.tag, 'ltsc2019');
    assert.equal(windowsVersionByBuildLabel('10.0.26100')!.tag, 'ltsc2025');
    assert.equal(windowsVersionByBuildLabel('10.0.17763.1879'), undefined);
    assert.equal(windowsVersionByBuildLabel('6.3.9600'), undefined);
    assert.equal(windowsVersionByBuildLabel('17763'), undefined);
  });
  test('lookupWindowsVersion accepts a tag, a build or a version string', () => {
    assert.equal(lookupWindowsVersion('1909')!.build, 18363);
    assert.equal(lookupWindowsVersion(20348)!.tag, 'ltsc2022');
    assert.equal(lookupWindowsVersion('10.0.20348')!.tag, 'ltsc2022');
    assert.equal(lookupWindowsVersion('10.0.19042.1415')!.tag, '20H2');
  });
  test('parseWindowsBuild', () => {
    assert.equal(parseWindowsBuild(17763), 17763);
    assert.equal(parseWindowsBuild('17763'), 17763);
    assert.equal(parseWindowsBuild('10.0.17763'), 17763);
    assert.equal(parseWindowsBuild('10.0.17763.1879'), 17763);
    assert.equal(parseWindowsBuild('6.3.9600'), undefined);
    assert.equal(parseWindowsBuild('17763.1879'), undefined);
    assert.equal(parseWindowsBuild('ltsc2019'), undefined);
    assert.equal(parseWindowsBuild(undefined), undefined);
  });
});

describe('node identity', () => {
  test('windows-build label has no UBR; kernelVersion does', () => {
    const ws2019 = windowsVersionByTag('ltsc2019')!;
    assert.equal(windowsBuildLabel(ws2019), '10.0.17763');
    assert.equal(windowsBuildLabel(26100), '10.0.26100');
    assert.equal(windowsKernelVersion(ws2019), '10.0.17763.1879');
    assert.equal(windowsKernelVersion(windowsVersionByTag('ltsc2022')!), '10.0.20348.2582');
    assert.equal(windowsKernelVersion(ws2019, 6659), '10.0.17763.6659');
  });
  test('image os.version uses the default UBR unless given', () => {
    assert.equal(windowsOSVersion(20348), '10.0.20348.2582');
    assert.equal(windowsOSVersion(17763, 437), '10.0.17763.437');
    assert.equal(windowsOSVersion(22000), '10.0.22000.0');
  });
  test('windowsNodeIdentity: labels and nodeInfo', () => {
    assert.deepEqual(windowsNodeIdentity(windowsVersionByTag('ltsc2022')!), {
      labels: {
        'kubernetes.io/os': 'windows', 'kubernetes.io/arch': 'amd64',
        'beta.kubernetes.io/os': 'windows', 'beta.kubernetes.io/arch': 'amd64',
        'node.kubernetes.io/windows-build': '10.0.20348',
      },
      nodeInfo: { operatingSystem: 'windows', architecture: 'amd64', kernelVersion: '10.0.20348.2582', osImage: 'Windows Server 2022 Datacenter' },
    });
  });
});

describe('processIsolationCompatible (hcsshim CheckHostAndContainerCompat, notes §9.2)', () => {
  test('hosts below 20348 need the exact build', () => {
    assert.equal(processIsolationCompatible(17763, 17763), true);
    assert.equal(processIsolationCompatible(17763, 18362), false);
    assert.equal(processIsolationCompatible(19042, 19041), false);
  });
  test('WS2022 host runs only 20348', () => {
    assert.equal(processIsolationCompatible(20348, 20348), true);
    assert.equal(processIsolationCompatible(20348, 17763), false);
    assert.equal(processIsolationCompatible(20348, 26100), false);
  });
  test('Windows 11 hosts run 20348..host', () => {
    assert.equal(processIsolationCompatible(22000, 20348), true);
    assert.equal(processIsolationCompatible(22621, 22000), true);
    assert.equal(processIsolationCompatible(22000, 22621), false);
  });
  test('WS2025 host runs 20348..26100, never 17763', () => {
    assert.equal(processIsolationCompatible(26100, 20348), true);
    assert.equal(processIsolationCompatible(26100, 26100), true);
    assert.equal(processIsolationCompatible(26100, 17763), false);
  });
  test('hosts above 26100 run 26100..host only', () => {
    assert.equal(processIsolationCompatible(27000, 26100), true);
    assert.equal(processIsolationCompatible(27000, 20348), false);
  });
  test('major.minor must match', () => {
    assert.equal(processIsolationCompatible(20348, 20348, [10, 0], [6, 3]), false);
  });
  test('Hyper-V isolation: older-or-equal container builds only', () => {
    assert.equal(hypervIsolationCompatible(20348, 17763), true);
    assert.equal(hypervIsolationCompatible(17763, 20348), false);
  });
});
