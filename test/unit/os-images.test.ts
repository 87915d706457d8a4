/** Image references, the image catalog and per-node resolution (src/os/images.ts, src/os/image-catalog.ts). */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatPlatform, hintFor, NO_PLATFORM_MATCH, parseImageReference, resolveImage, tagForBuild,
  type ImageFailure, type ImageResolution, type NodePlatform,
} from '../../src/os/images.js';
import { catalogRepository, PAUSE_WINDOWS_BUILDS } from '../../src/os/image-catalog.js';

const WS2019: NodePlatform = { os: 'windows', arch: 'amd64', build: '10.0.17763' };
const WS2022: NodePlatform = { os: 'windows', arch: 'amd64', build: 20348 };
const WS2025: NodePlatform = { os: 'windows', arch: 'amd64', build: '10.0.26100.1742' };
const LINUX: NodePlatform = { os: 'linux', arch: 'amd64' };
const LINUX_ARM: NodePlatform = { os: 'linux', arch: 'arm64' };
const HCS = 'The container operating system does not match the host operating system. (0xc0370101)';

const chosen = (r: ImageResolution) => (r.ok ? formatPlatform(r.image.platform) : `FAIL ${r.failure.kind}`);
const failure = (r: ImageResolution): ImageFailure => {
  assert.equal(r.ok, false);
  return (r as { ok: false; failure: ImageFailure }).failure;
};

describe('parseImageReference', () => {
  test('Docker Hub defaults: nginx → docker.io/library/nginx:latest', () => {
    assert.deepEqual(parseImageReference('nginx'), {
      original: 'nginx', registry: 'docker.io', repository: 'library/nginx', tag: 'latest', digest: '',
      name: 'docker.io/library/nginx', normalized: 'docker.io/library/nginx:latest',
    });
    assert.equal(parseImageReference('bitnami/redis:7')!.normalized, 'docker.io/bitnami/redis:7');
    assert.equal(parseImageReference('index.docker.io/library/busybox:1.36')!.normalized, 'docker.io/library/busybox:1.36');
  });
  test('registry with port, nested path, tag and digest', () => {
    const d = `sha256:${'a'.repeat(64)}`;
    const r = parseImageReference(`localhost:5000/team/app:v1@${d}`)!;
    assert.deepEqual([r.registry, r.repository, r.tag, r.digest], ['localhost:5000', 'team/app', 'v1', d]);
    assert.equal(r.normalized, `localhost:5000/team/app:v1@${d}`);
  });
  test('digest only keeps an empty tag', () => {
    const d = `sha256:${'b'.repeat(64)}`;
    const r = parseImageReference(`mcr.microsoft.com/windows/servercore@${d}`)!;
    assert.deepEqual([r.name, r.tag, r.digest], ['mcr.microsoft.com/windows/servercore', '', d]);
  });
  test('invalid references (same verdict as the image-ref parser)', () => {
    for (const bad of ['', 'Nginx', 'nginx:', 'nginx@sha256:xyz', 'a'.repeat(64), 'foo//bar', ' nginx']) {
      assert.equal(parseImageReference(bad), undefined, bad);
    }
  });
});

describe('catalog', () => {
  test('servercore: release, -amd64, KB and full-version tags; no latest', () => {
    const repo = catalogRepository('mcr.microsoft.com/windows/servercore')!;
    const firstPlatform = (tag: string) => {
      const [p] = repo.resolveTag(tag)!.platforms;
      assert.ok(p, `no platform for ${tag}`);
      return p;
    };
    assert.equal(formatPlatform(firstPlatform('ltsc2019')), 'windows/amd64 10.0.17763.1879');
    assert.equal(formatPlatform(firstPlatform('ltsc2022-amd64')), 'windows/amd64 10.0.20348.2582');
    assert.equal(formatPlatform(firstPlatform('1809-KB4493509')), 'windows/amd64 10.0.17763.1879');
    assert.equal(formatPlatform(firstPlatform('10.0.17763.437')), 'windows/amd64 10.0.17763.437');
    assert.equal(repo.resolveTag('latest'), undefined);
  });
  test('nanoserver has 1809 but (per notes) no ltsc2019; server has only ltsc2022/ltsc2025', () => {
    assert.ok(catalogRepository('mcr.microsoft.com/windows/nanoserver')!.resolveTag('1809'));
    assert.equal(catalogRepository('mcr.microsoft.com/windows/nanoserver')!.resolveTag('ltsc2019'), undefined);
    assert.equal(catalogRepository('mcr.microsoft.com/windows/server')!.resolveTag('ltsc2019'), undefined);
    assert.ok(catalogRepository('mcr.microsoft.com/windows/server')!.resolveTag('ltsc2025'));
  });
  test('pause: Windows entries per tag (notes §9.5)', () => {
    const repo = catalogRepository('registry.k8s.io/pause')!;
    const win = (tag: string) => repo.resolveTag(tag)!.platforms.filter((p) => p.os === 'windows').map((p) => p['os.version']);
    assert.deepEqual(win('3.10'), ['10.0.17763.1879', '10.0.20348.2582']);
    assert.deepEqual(win('3.6').length, 6);
    assert.deepEqual(win('3.3'), []);
    assert.deepEqual(repo.resolveTag('3.10')!.platforms.filter((p) => p.os === 'linux').map((p) => p.architecture),
      ['amd64', 'arm', 'arm64', 'ppc64le', 's390x']);
    assert.deepEqual(Object.keys(PAUSE_WINDOWS_BUILDS).includes('3.10.1'), true);
  });
  test('.NET Framework and PowerShell tag grammar', () => {
    const aspnet = catalogRepository('mcr.microsoft.com/dotnet/framework/aspnet')!;
    assert.deepEqual(aspnet.resolveTag('4.8-windowsservercore-ltsc2022')!.platforms.map(formatPlatform), ['windows/amd64 10.0.20348.2582']);
    assert.deepEqual(aspnet.resolveTag('4.8.1')!.platforms.map((p) => p['os.version']),
      ['10.0.17763.1879', '10.0.20348.2582', '10.0.26100.1742']);
    assert.equal(aspnet.resolveTag('4.8-windowsservercore-1903'), undefined);
    const pwsh = catalogRepository('mcr.microsoft.com/powershell')!;
    assert.deepEqual(pwsh.resolveTag('lts-nanoserver-1809')!.platforms.map(formatPlatform), ['windows/amd64 10.0.17763.1879']);
    assert.deepEqual(pwsh.resolveTag('lts-ubuntu-22.04')!.platforms.map((p) => p.os), ['linux', 'linux', 'linux']);
  });
});

describe('resolveImage: Linux images', () => {
  test('nginx on linux/amd64 and linux/arm64 (variant ignored)', () => {
    assert.equal(chosen(resolveImage('nginx', LINUX)), 'linux/amd64');
    assert.equal(chosen(resolveImage('nginx:1.27', LINUX_ARM)), 'linux/arm64/v8');
  });
  test('unknown images default to single-arch linux/amd64', () => {
    const r = resolveImage('quay.io/acme/app:1.0', LINUX);
    assert.ok(r.ok);
    assert.deepEqual([r.image.source, r.image.manifestList, formatPlatform(r.image.platform)], ['default', false, 'linux/amd64']);
  });
  test('unknown amd64 image on arm64 → arch-mismatch at pull', () => {
    const f = failure(resolveImage('quay.io/acme/app:1.0', LINUX_ARM));
    assert.deepEqual([f.kind, f.stage, f.reason, f.message], ['arch-mismatch', 'pull', 'ErrImagePull', NO_PLATFORM_MATCH]);
  });
  test('Linux image on a Windows node → no platform match at pull (containerd selects windows/<arch> entries only)', () => {
    const f = failure(resolveImage('nginx', WS2022));
    assert.deepEqual([f.kind, f.stage, f.reason, f.message], ['os-mismatch', 'pull', 'ErrImagePull', NO_PLATFORM_MATCH]);
    assert.equal(f.pulled, undefined);
  });
  test('invalid reference → InvalidImageName', () => {
    const f = failure(resolveImage('NGINX', LINUX));
    assert.deepEqual([f.kind, f.reason, f.message], ['invalid-reference', 'InvalidImageName', 'invalid reference format']);
  });
});

describe('resolveImage: Windows images', () => {
  test('servercore:ltsc2022 on WS2022', () => {
    assert.equal(chosen(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2022', WS2022)), 'windows/amd64 10.0.20348.2582');
  });
  test('Windows image on a Linux node → no platform match at pull', () => {
    const f = failure(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2022', LINUX));
    assert.deepEqual([f.kind, f.stage, f.reason, f.message], ['os-mismatch', 'pull', 'ErrImagePull', NO_PLATFORM_MATCH]);
  });
  test('ltsc2019 image on WS2022 → build mismatch (HCS error), pulled anyway', () => {
    const f = failure(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2019', WS2022));
    assert.deepEqual([f.kind, f.stage, f.message], ['build-mismatch', 'create', HCS]);
    assert.equal(f.pulled!['os.version'], '10.0.17763.1879');
  });
  test('ltsc2022 image on WS2019 → build mismatch (newer on older)', () => {
    assert.equal(failure(resolveImage('mcr.microsoft.com/windows/nanoserver:ltsc2022', WS2019)).kind, 'build-mismatch');
  });
  test('ltsc2022 image on WS2025 runs (hcsshim relaxation); ltsc2019 does not', () => {
    assert.equal(chosen(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2022', WS2025)), 'windows/amd64 10.0.20348.2582');
    assert.equal(failure(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2019', WS2025)).kind, 'build-mismatch');
  });
  test('SAC 2004 image on a 20H2 host → mismatch (exact build below 20348)', () => {
    assert.equal(failure(resolveImage('mcr.microsoft.com/windows/servercore:2004', { os: 'windows', arch: 'amd64', build: 19042 })).kind,
      'build-mismatch');
  });
  test('multi-arch pause picks the host build; WS2025 gets the 20348 entry', () => {
    assert.equal(chosen(resolveImage('registry.k8s.io/pause:3.10', WS2019)), 'windows/amd64 10.0.17763.1879');
    assert.equal(chosen(resolveImage('registry.k8s.io/pause:3.10', WS2022)), 'windows/amd64 10.0.20348.2582');
    assert.equal(chosen(resolveImage('registry.k8s.io/pause:3.10', WS2025)), 'windows/amd64 10.0.20348.2582');
    assert.equal(chosen(resolveImage('registry.k8s.io/pause:3.10', LINUX_ARM)), 'linux/arm64');
  });
  test('pause:3.5 has no ltsc2022 entry → mismatch on WS2022', () => {
    assert.equal(failure(resolveImage('registry.k8s.io/pause:3.5', WS2022)).kind, 'build-mismatch');
  });
  test('agnhost is multi-OS', () => {
    assert.equal(chosen(resolveImage('registry.k8s.io/e2e-test-images/agnhost:2.52', WS2022)), 'windows/amd64 10.0.20348.2582');
    assert.equal(chosen(resolveImage('registry.k8s.io/e2e-test-images/agnhost:2.52', LINUX)), 'linux/amd64');
  });
  test('unknown host build or HostProcess skip the build check', () => {
    assert.ok(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2019', { os: 'windows', arch: 'amd64' }).ok);
    assert.ok(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2019', WS2022, [], { hostProcess: true }).ok);
  });
  test('digest-only references to catalog repositories pick the node\'s entry', () => {
    const d = `@sha256:${'c'.repeat(64)}`;
    assert.equal(chosen(resolveImage(`mcr.microsoft.com/windows/servercore${d}`, WS2019)), 'windows/amd64 10.0.17763.1879');
    assert.equal(chosen(resolveImage(`nginx${d}`, LINUX_ARM)), 'linux/arm64/v8');
    assert.equal(failure(resolveImage(`mcr.microsoft.com/windows/servercore${d}`, LINUX)).kind, 'os-mismatch');
  });
  test('unknown tag of a catalog repository → not found at pull', () => {
    const f = failure(resolveImage('mcr.microsoft.com/windows/servercore:latest', WS2022));
    assert.deepEqual([f.kind, f.stage, f.message],
      ['unknown-tag', 'pull', 'mcr.microsoft.com/windows/servercore:latest: not found']);
  });
  test('a Docker Hub library name outside the official images names no repository; a declared image of that name resolves', () => {
    const f = failure(resolveImage('webserver:404', LINUX));
    assert.deepEqual([f.kind, f.stage, f.reason, f.message],
      ['unknown-repository', 'pull', 'ErrImagePull', 'pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed']);
    assert.equal(failure(resolveImage('docker.io/library/webserver', LINUX)).kind, 'unknown-repository');
    assert.equal(resolveImage('webserver:404', LINUX, [{ ref: 'webserver:404', platforms: [{ os: 'linux', architecture: 'amd64' }] }]).ok, true);
    assert.equal(resolveImage('mongo-express:1', LINUX).ok, true);
  });
});

describe('user-declared images', () => {
  const user = [
    { ref: 'contoso/iis-app:v2', platforms: [{ os: 'windows' as const, architecture: 'amd64', 'os.version': '10.0.17763.5000' }] },
    { ref: 'contoso/tool', platforms: [{ os: 'linux' as const, architecture: 'arm64' }] },
  ];
  test('an exact tag declaration wins', () => {
    const r = resolveImage('contoso/iis-app:v2', WS2019, user);
    assert.ok(r.ok);
    assert.deepEqual([r.image.source, r.image.platform['os.version']], ['user', '10.0.17763.5000']);
    assert.equal(failure(resolveImage('contoso/iis-app:v2', WS2022, user)).kind, 'build-mismatch');
  });
  test('a tag-less declaration covers every tag; other tags of a tagged declaration are unknown', () => {
    assert.equal(chosen(resolveImage('docker.io/contoso/tool:9', LINUX_ARM, user)), 'linux/arm64');
    // v3 is undeclared → the unknown-image default (linux/amd64), so a Windows node fails it
    assert.equal(failure(resolveImage('contoso/iis-app:v3', WS2019, user)).kind, 'os-mismatch');
    const r = resolveImage('contoso/iis-app:v3', LINUX, user);
    assert.ok(r.ok);
    assert.equal(r.image.source, 'default');
  });
  test('a declaration overrides the catalog', () => {
    const r = resolveImage('nginx:custom', WS2022, [{ ref: 'nginx:custom', platforms: [{ os: 'windows', architecture: 'amd64', 'os.version': '10.0.20348.1' }] }]);
    assert.ok(r.ok);
    assert.equal(r.image.source, 'user');
  });
});

describe('tagForBuild and hintFor (our text)', () => {
  test('tagForBuild swaps the release token', () => {
    const ref = (s: string) => parseImageReference(s)!;
    assert.equal(tagForBuild(ref('mcr.microsoft.com/windows/servercore:ltsc2019'), 20348), 'ltsc2022');
    assert.equal(tagForBuild(ref('mcr.microsoft.com/windows/servercore:ltsc2019'), 26100), 'ltsc2025');
    assert.equal(tagForBuild(ref('mcr.microsoft.com/windows/nanoserver:ltsc2022'), 17763), '1809');
    assert.equal(tagForBuild(ref('mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2019'), 20348),
      '4.8-windowsservercore-ltsc2022');
    assert.equal(tagForBuild(ref('mcr.microsoft.com/windows/server:ltsc2022'), 17763), undefined);
  });
  test('build mismatch hint names the tag and the windows-build selector', () => {
    assert.equal(hintFor(failure(resolveImage('mcr.microsoft.com/windows/servercore:ltsc2019', WS2022))),
      'image "mcr.microsoft.com/windows/servercore:ltsc2019" is built for Windows 10.0.17763 (ltsc2019) but the node runs ' +
      '10.0.20348 (ltsc2022); process isolation needs a compatible build: use "mcr.microsoft.com/windows/servercore:ltsc2022" ' +
      'or add nodeSelector: {node.kubernetes.io/windows-build: "10.0.17763"} to run on a node of the image\'s build');
  });
  test('Linux image on Windows → kubernetes.io/os: linux', () => {
    assert.equal(hintFor(failure(resolveImage('busybox', WS2022))).includes('nodeSelector: {kubernetes.io/os: "linux"}'), true);
  });
  test('single-build Windows image on Linux → os + windows-build selector', () => {
    assert.equal(hintFor(failure(resolveImage('mcr.microsoft.com/windows/nanoserver:ltsc2022', LINUX))),
      'image "mcr.microsoft.com/windows/nanoserver:ltsc2022" is a Windows image (it offers windows/amd64 10.0.20348.2582) ' +
      'and cannot run on a Linux node; add nodeSelector: {kubernetes.io/os: "windows", node.kubernetes.io/windows-build: "10.0.20348"} ' +
      '(and spec.os.name: windows, plus a toleration for any Windows node taint)');
  });
  test('arch mismatch → kubernetes.io/arch selector', () => {
    assert.equal(hintFor(failure(resolveImage('quay.io/acme/app', LINUX_ARM))).includes('nodeSelector: {kubernetes.io/arch: "amd64"}'), true);
  });
  test('unknown tag → known tags', () => {
    assert.equal(hintFor(failure(resolveImage('mcr.microsoft.com/windows/server:ltsc2019', WS2019))),
      'image "mcr.microsoft.com/windows/server:ltsc2019" has no such tag; known tags include ltsc2022, ltsc2025');
  });
});

test('the HostProcess base image and IIS are Windows images; IIS picks the node build, a Linux node cannot run them', () => {
  const hpc = 'mcr.microsoft.com/oss/kubernetes/windows-host-process-containers-base-image:v1.0.0';
  assert.equal(chosen(resolveImage(hpc, WS2022, [], { hostProcess: true })), 'windows/amd64');
  assert.equal(chosen(resolveImage(hpc, LINUX)), 'FAIL os-mismatch');
  assert.match(chosen(resolveImage('mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019', WS2019)), /^windows\/amd64 10\.0\.17763\./);
  assert.match(chosen(resolveImage('mcr.microsoft.com/windows/servercore/iis', WS2022)), /^windows\/amd64 10\.0\.20348\./);
  assert.equal(chosen(resolveImage('mcr.microsoft.com/windows/servercore/iis:latest', LINUX)), 'FAIL os-mismatch');
  assert.equal(chosen(resolveImage('mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2022', WS2019)), 'FAIL build-mismatch');
});
