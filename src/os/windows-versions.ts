/**
 * Windows Server versions and builds as the emulated Windows nodes report
 * them, plus hcsshim's process-isolation compatibility rule
 * (notes: /work/shared/research/windows-semantics.md §2.1, §2.2, §9.1, §9.2).
 *
 * - `node.kubernetes.io/windows-build` = `<Major>.<Minor>.<CurrentBuildNumber>`, no UBR (§2.1).
 * - `status.nodeInfo.kernelVersion` = `<Major>.<Minor>.<Build>.<UBR>` (§2.2).
 * - `status.nodeInfo.osImage` = the registry ProductName (§2.2).
 *
 * The UBR (update build revision) of each entry is OUR DEFAULT, not a
 * claim about any particular patch level: a real node reports whatever
 * cumulative update it has installed. 17763.1879 and 20348.2582 are the
 * examples the notes quote; the others are picked by us.
 */
import type { OSName } from './windows-rules.js';

export type WindowsChannel = 'LTSC' | 'SAC';

export interface WindowsVersion {
  /** The container image tag naming the release (`ltsc2019`, `1809`, `20H2`, ...). */
  tag: string;
  /** Release name (`Windows Server 2019`, `Windows Server, version 1809`, ...). */
  release: string;
  channel: WindowsChannel;
  major: number;
  minor: number;
  build: number;
  /** Our default UBR for kernelVersion; NOT a claim about a real patch level. */
  defaultUBR: number;
  /** status.nodeInfo.osImage (registry ProductName) of a Datacenter install. */
  osImage: string;
  /** True when osImage is our best guess rather than a value quoted in the notes. */
  osImageUnverified?: boolean;
}

export const WINDOWS_MAJOR = 10;
export const WINDOWS_MINOR = 0;

/** hcsshim osversion build constants used by the compatibility rule. */
export const BUILD_RS5 = 17763;
export const BUILD_LTSC2019 = 17763;
export const BUILD_V19H1 = 18362;
export const BUILD_V19H2 = 18363;
export const BUILD_V20H1 = 19041;
export const BUILD_V20H2 = 19042;
export const BUILD_LTSC2022 = 20348;
export const BUILD_LTSC2025 = 26100;

/** hcsshim `compatLTSCReleases`: the LTSC builds from which the relaxed rule counts (§9.2). */
export const COMPAT_LTSC_RELEASES: readonly [number, ...number[]] = [BUILD_LTSC2022, BUILD_LTSC2025];

const v = (tag: string, release: string, channel: WindowsChannel, build: number, defaultUBR: number,
  osImage: string, osImageUnverified = false): WindowsVersion =>
  ({ tag, release, channel, major: WINDOWS_MAJOR, minor: WINDOWS_MINOR, build, defaultUBR, osImage,
    ...(osImageUnverified ? { osImageUnverified } : {}) });

/**
 * The supported versions, LTSC first, each build once per tag. 1809 and
 * ltsc2019 share build 17763; lookups by build return the LTSC entry.
 * SAC releases' ProductName has no year ("Windows Server Datacenter");
 * that string and the 2025 one are not confirmed by the notes.
 */
const LTSC2022 = v('ltsc2022', 'Windows Server 2022', 'LTSC', 20348, 2582, 'Windows Server 2022 Datacenter');

export const WINDOWS_VERSIONS: readonly WindowsVersion[] = [
  v('ltsc2019', 'Windows Server 2019', 'LTSC', 17763, 1879, 'Windows Server 2019 Datacenter'),
  LTSC2022,
  v('ltsc2025', 'Windows Server 2025', 'LTSC', 26100, 1742, 'Windows Server 2025 Datacenter', true),
  v('1809', 'Windows Server, version 1809', 'SAC', 17763, 1879, 'Windows Server Datacenter', true),
  v('1903', 'Windows Server, version 1903', 'SAC', 18362, 1256, 'Windows Server Datacenter', true),
  v('1909', 'Windows Server, version 1909', 'SAC', 18363, 1556, 'Windows Server Datacenter', true),
  v('2004', 'Windows Server, version 2004', 'SAC', 19041, 1415, 'Windows Server Datacenter', true),
  v('20H2', 'Windows Server, version 20H2', 'SAC', 19042, 1415, 'Windows Server Datacenter', true),
];

/** The default Windows node version when none is configured. */
export const DEFAULT_WINDOWS_VERSION: WindowsVersion = LTSC2022;

/** By image/release tag, case-insensitive (`LTSC2022`, `20h2` work too). */
export function windowsVersionByTag(tag: string): WindowsVersion | undefined {
  const t = tag.toLowerCase();
  return WINDOWS_VERSIONS.find((w) => w.tag.toLowerCase() === t);
}

/** By build number; the LTSC entry when an LTSC and a SAC release share the build. */
export function windowsVersionByBuild(build: number): WindowsVersion | undefined {
  return WINDOWS_VERSIONS.find((w) => w.build === build);
}

/**
 * A build number from `17763`, `"17763"`, `"10.0.17763"` or
 * `"10.0.17763.1879"`; undefined for anything else or a major.minor other than 10.0.
 */
export function parseWindowsBuild(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  const m = /^(?:(\d+)\.(\d+)\.)?(\d+)(?:\.(\d+))?$/.exec(value.trim());
  if (!m) return undefined;
  if (m[1] !== undefined && (Number(m[1]) !== WINDOWS_MAJOR || Number(m[2]) !== WINDOWS_MINOR)) return undefined;
  if (m[1] === undefined && m[4] !== undefined) return undefined;
  return Number(m[3]);
}

/** By the `node.kubernetes.io/windows-build` label value: exactly `10.0.<build>` (the label carries no UBR). */
export function windowsVersionByBuildLabel(label: string): WindowsVersion | undefined {
  if (!/^\d+\.\d+\.\d+$/.test(label.trim())) return undefined;
  const b = parseWindowsBuild(label);
  return b === undefined ? undefined : windowsVersionByBuild(b);
}

/** Lookup by tag, build number or build label, whichever the value looks like. */
export function lookupWindowsVersion(key: string | number): WindowsVersion | undefined {
  if (typeof key === 'number') return windowsVersionByBuild(key);
  return windowsVersionByTag(key) ?? (() => {
    const b = parseWindowsBuild(key);
    return b === undefined ? undefined : windowsVersionByBuild(b);
  })();
}

export const WINDOWS_BUILD_LABEL = 'node.kubernetes.io/windows-build';

/** The `node.kubernetes.io/windows-build` value: `10.0.<build>`. */
export function windowsBuildLabel(build: number | WindowsVersion): string {
  const b = typeof build === 'number' ? build : build.build;
  return `${WINDOWS_MAJOR}.${WINDOWS_MINOR}.${b}`;
}

/** status.nodeInfo.kernelVersion: `10.0.<build>.<UBR>` (UBR defaults to our default for the version). */
export function windowsKernelVersion(version: WindowsVersion, ubr: number = version.defaultUBR): string {
  return `${version.major}.${version.minor}.${version.build}.${ubr}`;
}

/** An image manifest's `os.version` for a build: `10.0.<build>.<rev>`. */
export function windowsOSVersion(build: number, rev = windowsVersionByBuild(build)?.defaultUBR ?? 0): string {
  return `${WINDOWS_MAJOR}.${WINDOWS_MINOR}.${build}.${rev}`;
}

/** The OS-specific part of a node as the kubelet registers it (§2.1, §2.2). */
export interface WindowsNodeIdentity {
  labels: Record<string, string>;
  nodeInfo: { operatingSystem: OSName; architecture: string; kernelVersion: string; osImage: string };
}

export function windowsNodeIdentity(version: WindowsVersion, ubr?: number): WindowsNodeIdentity {
  return {
    labels: {
      'kubernetes.io/os': 'windows',
      'kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'windows',
      'beta.kubernetes.io/arch': 'amd64',
      [WINDOWS_BUILD_LABEL]: windowsBuildLabel(version),
    },
    nodeInfo: {
      operatingSystem: 'windows',
      architecture: 'amd64',
      kernelVersion: windowsKernelVersion(version, ubr),
      osImage: version.osImage,
    },
  };
}

/**
 * hcsshim `CheckHostAndContainerCompat` for process isolation (notes §9.2),
 * on builds of the same major.minor (10.0 here):
 * - host build < 20348: the container build must equal the host build;
 * - otherwise let S be the highest LTSC build (20348, 26100) strictly below
 *   the host build, 20348 if none; the container build must lie in [S, host].
 * The revision (UBR) never matters from 1809 on.
 */
export function processIsolationCompatible(hostBuild: number, containerBuild: number,
  hostMajorMinor: [number, number] = [WINDOWS_MAJOR, WINDOWS_MINOR],
  containerMajorMinor: [number, number] = [WINDOWS_MAJOR, WINDOWS_MINOR]): boolean {
  if (hostMajorMinor[0] !== containerMajorMinor[0] || hostMajorMinor[1] !== containerMajorMinor[1]) return false;
  if (hostBuild < BUILD_LTSC2022) return hostBuild === containerBuild;
  // The newest LTSC release older than the host, else the oldest one.
  const supported = [...COMPAT_LTSC_RELEASES].reverse().find((r) => hostBuild > r) ?? COMPAT_LTSC_RELEASES[0];
  return supported <= containerBuild && containerBuild <= hostBuild;
}

/**
 * Hyper-V isolation (notes §9.2): a host runs container images of its own
 * build or older, never newer. Kubernetes supports only process isolation,
 * so no node applies this rule; it answers whether Hyper-V isolation would
 * have run an image that process isolation refuses.
 */
export function hypervIsolationCompatible(hostBuild: number, containerBuild: number): boolean {
  return containerBuild <= hostBuild;
}
