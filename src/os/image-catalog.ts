/**
 * What winkube knows about common images: for each repository, which tags
 * exist (as far as we model them) and which platforms each tag's manifest
 * (or manifest list) carries. Data only; the selection logic is in images.ts.
 *
 * Sources: notes §9.4 (Windows base image tags), §9.5 (pause history).
 * Everything else (the `-amd64` tags, .NET/PowerShell tag grammar, the exact
 * architecture lists of Linux images, agnhost's Windows builds) is our
 * approximation of the registries, good enough for emulation; see `approx`.
 * A Windows entry's `os.version` uses our default UBR (windows-versions.ts),
 * not the revision a real image carries.
 */
import type { OSName } from './windows-rules.js';
import { windowsOSVersion, windowsVersionByTag, BUILD_LTSC2019, BUILD_LTSC2022, BUILD_LTSC2025,
  BUILD_V19H1, BUILD_V19H2, BUILD_V20H1, BUILD_V20H2 } from './windows-versions.js';

/** One entry of an OCI image index (or the platform of a single-manifest image). */
export interface ImagePlatform {
  os: OSName;
  architecture: string;
  variant?: string;
  /** Windows only: `10.0.<build>.<rev>`. */
  'os.version'?: string;
}

export interface CatalogRepository {
  /** Normalized repository name (`docker.io/library/nginx`, `mcr.microsoft.com/windows/servercore`). */
  name: string;
  /** Tags shown in hints and used to find a tag for another Windows build. */
  exampleTags: readonly string[];
  /**
   * The platforms of a tag, undefined when the tag does not exist (in our model).
   * A one-element array with `manifestList: false` is a single-manifest image.
   */
  resolveTag(tag: string): { platforms: ImagePlatform[]; manifestList: boolean } | undefined;
  /** True when the data is our approximation rather than verified registry content. */
  approx: boolean;
}

const linux = (architecture: string, variant?: string): ImagePlatform =>
  (variant ? { os: 'linux', architecture, variant } : { os: 'linux', architecture });
const windows = (build: number): ImagePlatform =>
  ({ os: 'windows', architecture: 'amd64', 'os.version': windowsOSVersion(build) });

const list = (platforms: ImagePlatform[]) => ({ platforms, manifestList: true });

/** Windows release tags we model and their builds (ltsc2016 is out of scope). */
const WIN_TAGS = ['ltsc2019', 'ltsc2022', 'ltsc2025', '1809', '1903', '1909', '2004', '20H2'] as const;

/** The build a Windows release tag token names, case-insensitive. */
export function buildOfWindowsTagToken(token: string): number | undefined {
  return windowsVersionByTag(token)?.build;
}

/** The release-tag tokens of a tag split on `-` (`4.8-windowsservercore-ltsc2019` → `ltsc2019`). */
export function windowsTokenOf(tag: string): string | undefined {
  return tag.split('-').find((t) => buildOfWindowsTagToken(t) !== undefined);
}

/**
 * A Windows base OS repository (notes §9.4): `<release>`, `<release>-amd64`,
 * `<release>-KB<n>` and `10.0.<build>.<rev>` tags, each a manifest list with
 * one windows/amd64 entry. No `latest` (removed 2019-04-16).
 */
function windowsBase(name: string, releases: readonly string[], approx: boolean): CatalogRepository {
  const builds = new Set(releases.map((r) => buildOfWindowsTagToken(r)!));
  return {
    name, exampleTags: releases, approx,
    resolveTag(tag) {
      const full = /^10\.0\.(\d+)\.(\d+)$/.exec(tag);
      if (full) {
        const b = Number(full[1]);
        return builds.has(b) ? list([{ ...windows(b), 'os.version': tag }]) : undefined;
      }
      const m = /^([^-]+)(?:-amd64|-KB\d+)?$/i.exec(tag);
      if (!m) return undefined;
      const token = (m[1] ?? '').toLowerCase();
      const rel = releases.find((r) => r.toLowerCase() === token);
      return rel ? list([windows(buildOfWindowsTagToken(rel)!)]) : undefined;
    },
  };
}

const LINUX_DISTRO_TOKEN = /^(?:ubuntu|debian|alpine|mariner|azurelinux|cbl|bookworm|bullseye|jammy|noble|focal)/i;
const WINDOWS_FLAVOUR_TOKEN = /^(?:nanoserver|windowsservercore|servercore)$/i;

interface FamilyOptions {
  name: string;
  exampleTags: readonly string[];
  /** Release tokens allowed after a Windows flavour (e.g. nanoserver-ltsc2022). */
  windowsReleases: readonly string[];
  /** Builds a multi-platform tag (no release token) lists for Windows. */
  windowsBuilds: readonly number[];
  /** Linux entries of a multi-platform tag; empty for Windows-only repositories. */
  linuxPlatforms: readonly ImagePlatform[];
}

/**
 * A tag family like .NET's and PowerShell's: a tag naming a Windows release
 * (`lts-nanoserver-ltsc2022`, `4.8-windowsservercore-ltsc2019`) is that
 * build only; a tag naming a Linux distro is Linux only; any other tag is
 * the multi-platform list (Linux entries plus one Windows entry per build).
 */
function tagFamily(o: FamilyOptions): CatalogRepository {
  return {
    name: o.name, exampleTags: o.exampleTags, approx: true,
    resolveTag(tag) {
      const tokens = tag.split('-');
      const rel = windowsTokenOf(tag);
      if (rel !== undefined) {
        const known = o.windowsReleases.find((r) => r.toLowerCase() === rel.toLowerCase());
        return known ? list([windows(buildOfWindowsTagToken(known)!)]) : undefined;
      }
      if (tokens.some((t) => LINUX_DISTRO_TOKEN.test(t))) {
        return o.linuxPlatforms.length ? list([...o.linuxPlatforms]) : undefined;
      }
      const win = o.windowsBuilds.map(windows);
      if (tokens.some((t) => WINDOWS_FLAVOUR_TOKEN.test(t))) return list(win);
      return list([...o.linuxPlatforms, ...win]);
    },
  };
}

/** A Linux-only repository whose every tag carries the same architectures. */
function linuxRepo(name: string, platforms: readonly ImagePlatform[], exampleTags: readonly string[]): CatalogRepository {
  return { name, exampleTags, approx: true, resolveTag: () => list([...platforms]) };
}

/**
 * sig-windows-tools' HostProcess images (kube-proxy, flannel, calico-node):
 * built on the host-process-containers base image, Windows amd64 only. A
 * HostProcess container runs on the host, so no os.version is checked.
 */
function windowsHostProcessRepo(name: string, exampleTags: readonly string[]): CatalogRepository {
  return { name, exampleTags, approx: true, resolveTag: () => ({ platforms: [{ os: 'windows', architecture: 'amd64' }], manifestList: false }) };
}

const K8S_LINUX = [linux('amd64'), linux('arm'), linux('arm64'), linux('ppc64le'), linux('s390x')];

/**
 * registry.k8s.io/pause: Windows entries per tag (notes §9.5, k/k
 * build/pause/CHANGELOG.md): 3.4 added 1809/1903/1909/2004, 3.4.1 added
 * 20H2, 3.6 added ltsc2022, 3.7 dropped 1903/1909/2004; 3.10 lists 17763 and
 * 20348. Whether 3.7–3.9 still carry 20H2 is not settled in the notes (we
 * say no); 3.10.1 is assumed equal to 3.10; 3.1–3.3 are Linux-only.
 */
export const PAUSE_WINDOWS_BUILDS: Readonly<Record<string, readonly number[]>> = {
  '3.1': [], '3.2': [], '3.3': [],
  '3.4.1': [BUILD_LTSC2019, BUILD_V19H1, BUILD_V19H2, BUILD_V20H1, BUILD_V20H2],
  '3.5': [BUILD_LTSC2019, BUILD_V19H1, BUILD_V19H2, BUILD_V20H1, BUILD_V20H2],
  '3.6': [BUILD_LTSC2019, BUILD_V19H1, BUILD_V19H2, BUILD_V20H1, BUILD_V20H2, BUILD_LTSC2022],
  '3.7': [BUILD_LTSC2019, BUILD_LTSC2022],
  '3.8': [BUILD_LTSC2019, BUILD_LTSC2022],
  '3.9': [BUILD_LTSC2019, BUILD_LTSC2022],
  '3.10': [BUILD_LTSC2019, BUILD_LTSC2022],
  '3.10.1': [BUILD_LTSC2019, BUILD_LTSC2022],
};

const pause = (name: string): CatalogRepository => ({
  name, exampleTags: Object.keys(PAUSE_WINDOWS_BUILDS), approx: false,
  resolveTag(tag) {
    const builds = PAUSE_WINDOWS_BUILDS[tag];
    return builds ? list([...K8S_LINUX, ...builds.map(windows)]) : undefined;
  },
});

const NANO_RELEASES = ['1809', '1903', '1909', '2004', '20H2', 'ltsc2022', 'ltsc2025'] as const;
const LTSC_RELEASES = ['ltsc2019', 'ltsc2022', 'ltsc2025'] as const;

export const CATALOG: readonly CatalogRepository[] = [
  windowsBase('mcr.microsoft.com/windows/servercore', WIN_TAGS, false),
  windowsBase('mcr.microsoft.com/windows/nanoserver', NANO_RELEASES, false),
  windowsBase('mcr.microsoft.com/windows/server', ['ltsc2022', 'ltsc2025'], false),
  windowsBase('mcr.microsoft.com/windows', ['ltsc2019', '1809', '1903', '1909', '2004', '20H2'], true),
  pause('registry.k8s.io/pause'),
  {
    name: 'mcr.microsoft.com/oss/kubernetes/pause', exampleTags: ['3.6', '3.9', '3.10'], approx: true,
    resolveTag: (tag) => pause('').resolveTag(tag),
  },
  tagFamily({
    name: 'registry.k8s.io/e2e-test-images/agnhost', exampleTags: ['2.52', '2.47', '2.45'],
    windowsReleases: [], windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022], linuxPlatforms: K8S_LINUX,
  }),
  // The HPA e2e tests' consumer: the same multi-arch manifest list shape as agnhost (Linux, Windows ltsc2019/ltsc2022).
  tagFamily({
    name: 'registry.k8s.io/e2e-test-images/resource-consumer', exampleTags: ['1.13', '1.11', '1.10'],
    windowsReleases: [], windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022], linuxPlatforms: K8S_LINUX,
  }),
  ...['aspnet', 'runtime', 'sdk'].map((img) => tagFamily({
    name: `mcr.microsoft.com/dotnet/framework/${img}`,
    exampleTags: ['4.8-windowsservercore-ltsc2019', '4.8-windowsservercore-ltsc2022', '4.8.1-windowsservercore-ltsc2022',
      '4.8.1-windowsservercore-ltsc2025', '4.8', '4.8.1'],
    windowsReleases: LTSC_RELEASES, windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022, BUILD_LTSC2025], linuxPlatforms: [],
  })),
  tagFamily({
    name: 'mcr.microsoft.com/dotnet/framework/samples',
    exampleTags: ['aspnetapp', 'dotnetapp', 'aspnetapp-windowsservercore-ltsc2019', 'aspnetapp-windowsservercore-ltsc2022',
      'dotnetapp-windowsservercore-ltsc2022'],
    windowsReleases: LTSC_RELEASES, windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022, BUILD_LTSC2025], linuxPlatforms: [],
  }),
  ...['aspnet', 'runtime', 'sdk', 'samples'].map((img) => tagFamily({
    name: `mcr.microsoft.com/dotnet/${img}`,
    exampleTags: img === 'samples' ? ['aspnetapp', 'dotnetapp', 'aspnetapp-nanoserver-ltsc2022']
      : ['8.0', '8.0-nanoserver-ltsc2022', '8.0-nanoserver-1809', '8.0-windowsservercore-ltsc2022', '8.0-bookworm-slim'],
    windowsReleases: ['1809', 'ltsc2019', 'ltsc2022', 'ltsc2025'],
    windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022, BUILD_LTSC2025],
    linuxPlatforms: [linux('amd64'), linux('arm64'), linux('arm', 'v7')],
  })),
  tagFamily({
    name: 'mcr.microsoft.com/powershell',
    exampleTags: ['lts-nanoserver-1809', 'lts-nanoserver-ltsc2022', 'lts-windowsservercore-ltsc2022', 'lts-ubuntu-22.04', 'latest'],
    windowsReleases: ['1809', 'ltsc2022', 'ltsc2025'], windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022],
    linuxPlatforms: [linux('amd64'), linux('arm64'), linux('arm', 'v7')],
  }),
  // The HostProcess base image (kubernetes-sigs/windows-host-process-containers-base-image): a scratch
  // Windows image whose containers run on the host, so it carries no build to match.
  windowsHostProcessRepo('mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image', ['v1.0.0']),
  // IIS on Server Core: `windowsservercore-<release>` per LTSC release, `latest` the multi-build list.
  tagFamily({
    name: 'mcr.microsoft.com/windows/servercore/iis',
    exampleTags: ['windowsservercore-ltsc2019', 'windowsservercore-ltsc2022', 'windowsservercore-ltsc2025', 'latest'],
    windowsReleases: LTSC_RELEASES, windowsBuilds: [BUILD_LTSC2019, BUILD_LTSC2022, BUILD_LTSC2025], linuxPlatforms: [],
  }),
  windowsHostProcessRepo('docker.io/sigwindowstools/kube-proxy', ['v1.32.0-flannel-hostprocess', 'v1.32.0-calico-hostprocess']),
  windowsHostProcessRepo('docker.io/sigwindowstools/flannel', ['v0.26.1-hostprocess']),
  windowsHostProcessRepo('docker.io/sigwindowstools/calico-node', ['v3.29.1-hostprocess']),
  linuxRepo('docker.io/library/nginx',
    [linux('amd64'), linux('arm', 'v5'), linux('arm', 'v7'), linux('arm64', 'v8'), linux('386'), linux('mips64le'), linux('ppc64le'), linux('s390x')],
    ['latest', '1.27', 'alpine', 'stable']),
  linuxRepo('docker.io/library/busybox',
    [linux('amd64'), linux('arm', 'v5'), linux('arm', 'v6'), linux('arm', 'v7'), linux('arm64', 'v8'), linux('386'), linux('mips64le'),
      linux('ppc64le'), linux('riscv64'), linux('s390x')],
    ['latest', '1.36', 'stable']),
  linuxRepo('docker.io/library/alpine',
    [linux('amd64'), linux('arm', 'v6'), linux('arm', 'v7'), linux('arm64', 'v8'), linux('386'), linux('ppc64le'), linux('riscv64'), linux('s390x')],
    ['latest', '3.20', '3']),
  linuxRepo('docker.io/library/ubuntu',
    [linux('amd64'), linux('arm', 'v7'), linux('arm64', 'v8'), linux('ppc64le'), linux('riscv64'), linux('s390x')],
    ['latest', '24.04', '22.04', 'noble', 'jammy']),
];

/** The catalog entry for a normalized repository name. */
export function catalogRepository(name: string): CatalogRepository | undefined {
  return CATALOG.find((r) => r.name === name);
}
