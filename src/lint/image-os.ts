/**
 * Which OS (and, for Windows, which builds) an image reference offers, from
 * the image catalog winkube's runtimes use, or from a Windows release in the
 * tag (`-ltsc2019`, `-1809`) or a Windows base in the name or tag
 * (nanoserver, servercore). Undefined when nothing says: an unknown image is
 * never claimed to be Linux-only or Windows-only.
 */
import { buildOfWindowsTagToken, catalogRepository, windowsTokenOf, type ImagePlatform } from '../os/image-catalog.js';
import { parseImageReference, platformBuild } from '../os/images.js';

export interface ImageOS {
  linux: boolean;
  windows: boolean;
  /** The Windows builds it carries; empty when a Windows image names no build (e.g. a HostProcess image). */
  windowsBuilds: number[];
  /** Where this knowledge comes from, for the message. */
  basis: 'catalog' | 'tag';
}

const WINDOWS_BASE = /(^|[-_./])(nanoserver|servercore|windowsservercore)([-_./]|$)/i;

/**
 * Microsoft's Docker Hub repositories of the Docker EE era, built on Windows
 * Server Core only (their Docker Hub pages, before the move to mcr.microsoft.com).
 */
const LEGACY_WINDOWS_REPOSITORIES = new Set(['microsoft/iis', 'microsoft/aspnet', 'microsoft/dotnet-framework',
  'microsoft/windowsservercore', 'microsoft/nanoserver']);

export function imageOS(image: string): ImageOS | undefined {
  const ref = parseImageReference(image);
  if (!ref) return undefined;
  const repo = catalogRepository(ref.name);
  const resolved = repo && ref.tag ? repo.resolveTag(ref.tag) : undefined;
  if (resolved) {
    const platforms: ImagePlatform[] = resolved.platforms;
    const builds = platforms.filter((p) => p.os === 'windows').map(platformBuild).filter((b): b is number => b !== undefined);
    return {
      linux: platforms.some((p) => p.os === 'linux'), windows: platforms.some((p) => p.os === 'windows'),
      windowsBuilds: [...new Set(builds)], basis: 'catalog',
    };
  }
  const token = ref.tag ? windowsTokenOf(ref.tag) : undefined;
  const build = token ? buildOfWindowsTagToken(token) : undefined;
  if (build !== undefined) return { linux: false, windows: true, windowsBuilds: [build], basis: 'tag' };
  if (ref.registry === 'docker.io' && LEGACY_WINDOWS_REPOSITORIES.has(ref.repository)) return { linux: false, windows: true, windowsBuilds: [], basis: 'catalog' };
  if (WINDOWS_BASE.test(ref.repository) || WINDOWS_BASE.test(ref.tag)) return { linux: false, windows: true, windowsBuilds: [], basis: 'tag' };
  return undefined;
}
