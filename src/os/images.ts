/**
 * Image references and per-node image resolution: which manifest entry an
 * emulated node's runtime picks for an image, or the failure the real
 * runtime gives (notes /work/shared/research/windows-semantics.md §3, §9,
 * §10). Pure functions; the catalog data is in image-catalog.ts.
 *
 * Failure texts:
 * - Windows node, no Windows entry of the node's architecture (a Linux
 *   image such as nginx): the pull fails as on Linux (AKS Windows nodes
 *   report `failed to pull and unpack image "...": no match for platform in
 *   manifest: not found`).
 * - Windows node, Windows entries of an incompatible build only (process
 *   isolation): the image is pulled, then hcsshim's
 *   `The container operating system does not match the host operating system.`
 *   with HRESULT 0xc0370101 (§9.3). The notes do not quote the full
 *   containerd/kubelet error line around it; `message` appends the HRESULT
 *   in parentheses the way the MS doc wording does, which is our composition.
 * - Linux node, no Linux entry of the node's architecture: containerd's
 *   pull error `no match for platform in manifest: not found`, which the
 *   notes mark UNVERIFIED (§9.3).
 * Hints (`hintFor`) are winkube's own text, not upstream's.
 */
import { imageTag } from '../meta/image-ref.js';
import type { OSName } from './windows-rules.js';
import { missingDockerLibraryRepository, PULL_ACCESS_DENIED } from './docker-official-images.js';
import { catalogRepository, windowsTokenOf, type CatalogRepository, type ImagePlatform } from './image-catalog.js';
import {
  parseWindowsBuild, processIsolationCompatible, windowsBuildLabel, windowsVersionByBuild, WINDOWS_BUILD_LABEL,
  WINDOWS_VERSIONS,
} from './windows-versions.js';

export type { ImagePlatform } from './image-catalog.js';

// ---------------------------------------------------------------------------
// References

export interface ImageReference {
  /** The reference as written. */
  original: string;
  /** `docker.io` when the reference names no registry. */
  registry: string;
  /** Path below the registry; `library/` is added for single-component Docker Hub names. */
  repository: string;
  /** `latest` when neither tag nor digest is given; '' when only a digest is given. */
  tag: string;
  digest: string;
  /** `registry/repository`. */
  name: string;
  /** The fully qualified reference: `name[:tag][@digest]`. */
  normalized: string;
}

/**
 * Parses `[registry/]repo[:tag][@digest]` as docker's ParseNormalizedNamed
 * plus the kubelet's default tag do: `nginx` → `docker.io/library/nginx:latest`.
 * Validity is decided by the existing parser (src/meta/image-ref.ts,
 * `imageTag` returns '' for an invalid reference); undefined when invalid.
 */
export function parseImageReference(ref: string): ImageReference | undefined {
  if (typeof ref !== 'string') return undefined;
  if (imageTag(ref) === '' && !validDigestOnly(ref)) return undefined;
  let rest = ref;
  let digest = '';
  const at = rest.indexOf('@');
  if (at !== -1) { digest = rest.slice(at + 1); rest = rest.slice(0, at); }
  let tag = '';
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) { tag = rest.slice(colon + 1); rest = rest.slice(0, colon); }
  let registry = 'docker.io';
  let repository = rest;
  const slash = rest.indexOf('/');
  if (slash !== -1) {
    const first = rest.slice(0, slash);
    if (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first) {
      registry = first;
      repository = rest.slice(slash + 1);
    }
  }
  if (registry === 'index.docker.io') registry = 'docker.io';
  if (registry === 'docker.io' && !repository.includes('/')) repository = `library/${repository}`;
  if (!tag && !digest) tag = 'latest';
  const name = `${registry}/${repository}`;
  return { original: ref, registry, repository, tag, digest, name,
    normalized: `${name}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}` };
}

/** imageTag answers '' both for invalid references and valid digest-only ones; tell them apart. */
function validDigestOnly(ref: string): boolean {
  const at = ref.indexOf('@');
  if (at === -1) return false;
  // Validate the name part with a throwaway tag; the digest grammar is docker's.
  return imageTag(`${ref.slice(0, at)}:x`) === 'x' &&
    /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9A-Fa-f]{32,}$/.test(ref.slice(at + 1));
}

// ---------------------------------------------------------------------------
// Resolution

export interface NodePlatform {
  os: OSName;
  arch: string;
  /** Windows host build: 20348, "20348", "10.0.20348" or "10.0.20348.2582". */
  build?: number | string;
}

/** A user-declared image: `ref` with or without tag (without: every tag). */
export interface UserImage {
  ref: string;
  platforms: ImagePlatform[];
  /** Whether it is an index (manifest list); default true when more than one platform. */
  manifestList?: boolean;
}

export interface ResolveOptions {
  /** HostProcess containers skip the build check (notes §10). */
  hostProcess?: boolean;
}

export type ImageFailureKind =
  | 'invalid-reference' // the reference does not parse
  | 'unknown-tag' // a catalog repository without that tag
  | 'unknown-repository' // a Docker Hub library name that is no official image
  | 'os-mismatch' // no entry for the node's OS
  | 'arch-mismatch' // entries for the node's OS, none for its architecture
  | 'build-mismatch'; // Windows entries, none compatible with the host build under process isolation

export interface ImageFailure {
  kind: ImageFailureKind;
  /** When the real runtime fails: the image pull, or container/sandbox creation after a successful pull. */
  stage: 'pull' | 'create';
  /** The container waiting reason (a pause image failing surfaces as FailedCreatePodSandBox instead). */
  reason: 'InvalidImageName' | 'ErrImagePull' | 'CreateContainerError';
  message: string;
  image: string;
  ref?: ImageReference;
  node: NodePlatform;
  /** The platforms the image offers (empty when unknown). */
  available: ImagePlatform[];
  /** The entry the runtime pulled before creation failed (stage 'create'). */
  pulled?: ImagePlatform;
}

export interface ImageSelection {
  ref: ImageReference;
  platform: ImagePlatform;
  manifestList: boolean;
  source: 'user' | 'catalog' | 'default';
  available: ImagePlatform[];
}

export type ImageResolution = { ok: true; image: ImageSelection } | { ok: false; failure: ImageFailure };

/** hcsshim's text for ERROR_… 0xc0370101 (notes §9.3). */
export const HCS_OS_MISMATCH = 'The container operating system does not match the host operating system.';
export const HCS_OS_MISMATCH_HRESULT = '0xc0370101';
/** The MS doc's wording of the same error (notes §9.3). */
export const HCS_OS_MISMATCH_MS_DOC = 'The operating system of the container does not match the operating system of the host. (0xc0370101)';
/** containerd's pull error when an index has no entry for the platform (UNVERIFIED per notes §9.3). */
export const NO_PLATFORM_MATCH = 'no match for platform in manifest: not found';
/** docker reference's ErrReferenceInvalidFormat. */
export const INVALID_REFERENCE_FORMAT = 'invalid reference format';

export const DEFAULT_IMAGE_PLATFORM: ImagePlatform = { os: 'linux', architecture: 'amd64' };

/** The build of a Windows manifest entry (from `os.version`), undefined when absent. */
export function platformBuild(p: ImagePlatform): number | undefined {
  return p['os.version'] === undefined ? undefined : parseWindowsBuild(p['os.version']);
}

export function formatPlatform(p: ImagePlatform): string {
  return `${p.os}/${p.architecture}${p.variant ? `/${p.variant}` : ''}${p['os.version'] ? ` ${p['os.version']}` : ''}`;
}

/** Node arch vs manifest arch: variants are ignored (`arm64` matches `arm64/v8`). */
const archMatches = (p: ImagePlatform, arch: string) => p.architecture === arch;

interface Lookup { platforms: ImagePlatform[]; manifestList: boolean; source: ImageSelection['source'] }

function lookupPlatforms(ref: ImageReference, userImages: readonly UserImage[]): Lookup | CatalogRepository {
  const declared = (u: UserImage): Lookup =>
    ({ platforms: u.platforms, manifestList: u.manifestList ?? u.platforms.length > 1, source: 'user' });
  const parsedUser = userImages.map((u) => ({ u, r: parseImageReference(u.ref) })).filter((x) => x.r);
  const exact = parsedUser.find(({ r }) => r!.name === ref.name &&
    ((ref.tag && r!.tag === ref.tag && !r!.digest) || (ref.digest && r!.digest === ref.digest)) &&
    /* a tag-less declaration parses with tag latest; only an explicit tag counts as exact */
    (r!.digest || hasExplicitTag(r!.original)));
  if (exact) return declared(exact.u);
  const any = parsedUser.find(({ r }) => r!.name === ref.name && !hasExplicitTag(r!.original) && !r!.digest);
  if (any) return declared(any.u);
  const repo = catalogRepository(ref.name);
  if (repo) {
    if (!ref.tag) {
      // Digest only: we cannot tell which tag the digest belongs to. Use `latest` when it exists, else the
      // union of the example tags' platforms, so the node's own entry is picked (no false mismatch).
      const latest = repo.resolveTag('latest');
      if (latest) return { ...latest, source: 'catalog' };
      const seen = new Set<string>();
      const platforms = repo.exampleTags.flatMap((t) => repo.resolveTag(t)?.platforms ?? [])
        .filter((p) => { const k = formatPlatform(p); return seen.has(k) ? false : (seen.add(k), true); });
      return { platforms, manifestList: true, source: 'catalog' };
    }
    return repo;
  }
  return { platforms: [DEFAULT_IMAGE_PLATFORM], manifestList: false, source: 'default' };
}

function hasExplicitTag(original: string): boolean {
  const noDigest = original.split('@', 1)[0] ?? '';
  return noDigest.lastIndexOf(':') > noDigest.lastIndexOf('/');
}

/**
 * The manifest entry a node's runtime uses for `ref`, or the failure.
 *
 * Unknown images (not user-declared, not in the catalog) are single-arch
 * linux/amd64. A digest-only reference to a catalog repository resolves as
 * its `latest` tag, else as the union of its example tags' platforms (we
 * cannot tell which tag the digest is), unless the user declares it.
 *
 * Windows nodes: among windows/<arch> entries, the one with the host's exact
 * build wins, else the highest build hcsshim's process-isolation rule
 * accepts (§9.2: a WS2025 host runs 20348 images). No compatible entry → the
 * image is still pulled (the first Windows entry) and creation fails with the
 * HCS error. An entry without os.version, an unknown host build and
 * HostProcess containers (§10) skip the build check.
 */
export function resolveImage(image: string, node: NodePlatform, userImages: readonly UserImage[] = [],
  opts: ResolveOptions = {}): ImageResolution {
  const ref = parseImageReference(image);
  const fail = (f: Omit<ImageFailure, 'image' | 'node'>): ImageResolution =>
    ({ ok: false, failure: { image, node, ...f } });
  if (!ref) {
    return fail({ kind: 'invalid-reference', stage: 'pull', reason: 'InvalidImageName', message: INVALID_REFERENCE_FORMAT, available: [] });
  }
  const found = lookupPlatforms(ref, userImages);
  let lookup: Lookup;
  if ('resolveTag' in found) {
    const r = found.resolveTag(ref.tag);
    if (!r) {
      return fail({ kind: 'unknown-tag', stage: 'pull', reason: 'ErrImagePull', ref, available: [],
        message: `${ref.normalized}: not found` });
    }
    lookup = { ...r, source: 'catalog' };
  } else {
    lookup = found;
  }
  if (lookup.source === 'default' && missingDockerLibraryRepository(ref.name)) {
    return fail({ kind: 'unknown-repository', stage: 'pull', reason: 'ErrImagePull', ref, available: [], message: PULL_ACCESS_DENIED });
  }
  const { platforms, manifestList, source } = lookup;
  const ok = (platform: ImagePlatform): ImageResolution =>
    ({ ok: true, image: { ref, platform, manifestList, source, available: platforms } });

  const sameOS = platforms.filter((p) => p.os === node.os);
  const candidates = sameOS.filter((p) => archMatches(p, node.arch));
  const [first] = candidates;

  if (node.os === 'windows') {
    const hcs = `${HCS_OS_MISMATCH} (${HCS_OS_MISMATCH_HRESULT})`;
    // containerd's Windows platform matcher selects windows/<arch> entries only, so an image
    // without one fails the pull itself (images.Manifest / the unpacker), as on Linux.
    if (!first) {
      return fail({ kind: sameOS.length === 0 ? 'os-mismatch' : 'arch-mismatch', stage: 'pull', reason: 'ErrImagePull',
        message: NO_PLATFORM_MATCH, ref, available: platforms });
    }
    const host = parseWindowsBuild(node.build);
    if (host === undefined || opts.hostProcess) return ok(first);
    const exact = candidates.find((p) => platformBuild(p) === host);
    if (exact) return ok(exact);
    const compatible = candidates
      .filter((p) => { const b = platformBuild(p); return b === undefined || processIsolationCompatible(host, b); })
      .sort((a, b) => (platformBuild(b) ?? 0) - (platformBuild(a) ?? 0));
    const [newestCompatible] = compatible;
    if (newestCompatible) return ok(newestCompatible);
    return fail({ kind: 'build-mismatch', stage: 'create', reason: 'CreateContainerError', message: hcs, ref,
      available: platforms, pulled: first });
  }

  if (!first) {
    return fail({ kind: sameOS.length === 0 ? 'os-mismatch' : 'arch-mismatch', stage: 'pull', reason: 'ErrImagePull',
      message: NO_PLATFORM_MATCH, ref, available: platforms });
  }
  return ok(first);
}

// ---------------------------------------------------------------------------
// Hints (our text)

const uniq = <T>(xs: T[]) => [...new Set(xs)];

/**
 * A tag of the same repository whose image the host build can run, found by
 * swapping the Windows release token of the tag (`ltsc2019` → `ltsc2022`);
 * undefined when the catalog has none.
 */
export function tagForBuild(ref: ImageReference, hostBuild: number): string | undefined {
  const repo = catalogRepository(ref.name);
  if (!repo || !ref.tag) return undefined;
  const token = windowsTokenOf(ref.tag);
  const releases = [...WINDOWS_VERSIONS].sort((a, b) =>
    // exact build first, then same channel as the current token, LTSC before SAC
    Number(b.build === hostBuild) - Number(a.build === hostBuild) ||
    Number(b.tag.startsWith('ltsc') === !!token?.startsWith('ltsc')) - Number(a.tag.startsWith('ltsc') === !!token?.startsWith('ltsc')) ||
    b.build - a.build);
  const candidates: string[] = [];
  for (const w of releases) {
    if (!processIsolationCompatible(hostBuild, w.build)) continue;
    if (token) candidates.push(ref.tag.split('-').map((t) => (t === token ? w.tag : t)).join('-'));
    else candidates.push(w.tag);
  }
  for (const tag of candidates) {
    const r = repo.resolveTag(tag);
    if (r?.platforms.some((p) => p.os === 'windows' && platformBuild(p) !== undefined &&
      processIsolationCompatible(hostBuild, platformBuild(p)!))) return tag;
  }
  return undefined;
}

const selector = (labels: Record<string, string>) =>
  `nodeSelector: {${Object.entries(labels).map(([k, v]) => `${k}: "${v}"`).join(', ')}}`;

/** How to fix a failure: the matching image tag or the nodeSelector to add. Our wording. */
export function hintFor(failure: ImageFailure): string {
  const { image, node, available } = failure;
  const offered = uniq(available.map(formatPlatform)).join(', ');
  switch (failure.kind) {
    case 'invalid-reference':
      return `image "${image}" is not a valid reference; use [registry/]repository[:tag][@digest] with a lower-case repository`;
    case 'unknown-repository':
      return `image "${image}" names no repository: Docker Hub's library/ holds the official images only; name the registry and repository ([registry/]owner/name[:tag]) or declare the image in the cluster file`;
    case 'unknown-tag': {
      const repo = failure.ref ? catalogRepository(failure.ref.name) : undefined;
      return `image "${image}" has no such tag${repo ? `; known tags include ${repo.exampleTags.join(', ')}` : ''}`;
    }
    case 'arch-mismatch': {
      const arches = uniq(available.filter((p) => p.os === node.os).map((p) => p.architecture));
      return `image "${image}" has no ${node.os}/${node.arch} variant (it offers ${offered}); add ` +
        `${selector({ 'kubernetes.io/arch': arches[0] ?? '' })} or use a multi-arch image`;
    }
    case 'os-mismatch': {
      if (node.os === 'windows') {
        return `image "${image}" is a Linux image (it offers ${offered}) and cannot run on a Windows node; add ` +
          `${selector({ 'kubernetes.io/os': 'linux' })} (and spec.os.name: linux), or use a Windows image`;
      }
      const builds = uniq(available.filter((p) => p.os === 'windows').map(platformBuild).filter((b): b is number => b !== undefined));
      const labels: Record<string, string> = { 'kubernetes.io/os': 'windows' };
      const [onlyBuild] = builds;
      if (onlyBuild !== undefined && builds.length === 1) labels[WINDOWS_BUILD_LABEL] = windowsBuildLabel(onlyBuild);
      return `image "${image}" is a Windows image (it offers ${offered}) and cannot run on a Linux node; add ` +
        `${selector(labels)} (and spec.os.name: windows, plus a toleration for any Windows node taint)`;
    }
    case 'build-mismatch': {
      const host = parseWindowsBuild(node.build)!;
      const builds = uniq(available.filter((p) => p.os === 'windows').map(platformBuild).filter((b): b is number => b !== undefined));
      const hostName = windowsVersionByBuild(host)?.tag;
      const parts: string[] = [];
      const tag = failure.ref ? tagForBuild(failure.ref, host) : undefined;
      if (tag && failure.ref) parts.push(`use "${failure.ref.name}:${tag}"`);
      const [firstBuild] = builds;
      if (firstBuild !== undefined) {
        parts.push(`add ${selector({ [WINDOWS_BUILD_LABEL]: windowsBuildLabel(firstBuild) })} to run on a node of the image's build`);
      }
      const imageBuilds = builds.map((b) => `${windowsBuildLabel(b)}${windowsVersionByBuild(b) ? ` (${windowsVersionByBuild(b)!.tag})` : ''}`);
      return `image "${image}" is built for Windows ${imageBuilds.join(', ')} but the node runs ${windowsBuildLabel(host)}` +
        `${hostName ? ` (${hostName})` : ''}; process isolation needs a compatible build: ${parts.join(' or ')}`;
    }
  }
}
