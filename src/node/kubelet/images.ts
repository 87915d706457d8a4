/**
 * The node's image store and puller, as the kubelet's image manager sees
 * it (pkg/kubelet/images/image_manager.go EnsureImageExists): pull
 * policies, `Pulling`/`Pulled`/`Failed`/`BackOff` events with upstream's
 * messages, and pull back-off per pod and image. Whether a pull succeeds is
 * decided by the image catalog (src/os/images.ts); how long it takes is the
 * model's pull time.
 */
import { parseImageReference, resolveImage, type ImageFailure, type ImageSelection, type NodePlatform, type UserImage } from '../../os/images.js';
import { Backoff } from './backoff.js';
import { REAL_CLOCK, type Clock } from './clock.js';
import { goDuration, imageDigest } from './format.js';

/** Sizes the model reports for common repositories (bytes, roughly the registries' compressed sizes). */
const IMAGE_SIZES: Record<string, number> = {
  'registry.k8s.io/pause': 320_368,
  'docker.io/library/busybox': 2_167_176,
  'docker.io/library/alpine': 3_653_068,
  'docker.io/library/nginx': 72_195_292,
  'docker.io/library/ubuntu': 29_754_290,
  'registry.k8s.io/e2e-test-images/agnhost': 51_124_389,
  'mcr.microsoft.com/windows/nanoserver': 121_301_432,
  'mcr.microsoft.com/windows/servercore': 2_319_823_101,
  'mcr.microsoft.com/windows/server': 3_468_228_512,
  'mcr.microsoft.com/windows': 5_712_016_394,
  'mcr.microsoft.com/oss/kubernetes/pause': 320_368,
};

export function imageSize(name: string): number {
  if (IMAGE_SIZES[name] !== undefined) return IMAGE_SIZES[name];
  if (name.startsWith('mcr.microsoft.com/dotnet/framework')) return 2_871_504_112;
  if (name.startsWith('mcr.microsoft.com/dotnet') || name.startsWith('mcr.microsoft.com/powershell')) return 118_930_125;
  return 25_000_000;
}

export type EnsureResult =
  | { kind: 'ready'; selection: ImageSelection; image: string; imageID: string; events: PullEvent[] }
  | { kind: 'failed'; reason: 'ErrImagePull' | 'ImagePullBackOff' | 'InvalidImageName' | 'ErrImageNeverPull'; message: string; events: PullEvent[]; failure?: ImageFailure }
  /** The pull takes `ms`; call `finish()` when it is done. */
  | { kind: 'pulling'; ms: number; events: PullEvent[]; finish(): EnsureResult };

export interface PullEvent { type: 'Normal' | 'Warning'; reason: string; message: string }

/** One entry of node.status.images. */
export interface ContainerImage { names: string[]; sizeBytes: number }

/** KubeletConfiguration nodeStatusMaxImages (default 50) and nodestatus' maxNamesPerImageInNodeStatus. */
export const NODE_STATUS_MAX_IMAGES = 50;
export const MAX_NAMES_PER_IMAGE_IN_NODE_STATUS = 5;

/**
 * pkg/kubelet/nodestatus Images over the image manager's list, which is
 * sorted by size, biggest first (images.imageCache: sort.Sort(sliceutils.ByImageSize)):
 * the nodeStatusMaxImages biggest, each with up to five names (repo digests, then repo tags).
 */
export function nodeStatusImages(images: readonly ContainerImage[], max = NODE_STATUS_MAX_IMAGES): ContainerImage[] {
  const sorted = [...images].sort((a, b) => b.sizeBytes - a.sizeBytes || (a.names[0] ?? '').localeCompare(b.names[0] ?? ''));
  return (max > -1 ? sorted.slice(0, max) : sorted).map((i) => ({ names: i.names.slice(0, MAX_NAMES_PER_IMAGE_IN_NODE_STATUS), sizeBytes: i.sizeBytes }));
}

export class NodeImages {
  /** Normalized references present on the node, with their image (repo digest) IDs. */
  private readonly present = new Map<string, string>();
  private readonly backoff = new Backoff(10_000, 300_000);
  private readonly prevPullErr = new Map<string, string>();

  constructor(private readonly platform: NodePlatform, private readonly pullMs: number, private readonly userImages: () => readonly UserImage[] = () => [],
    /** Called when an image is new on the node (the node's status.images changes). */
    private readonly onChange: () => void = () => {},
    /** Pull back-off times come from the kubelet's clock. */
    private readonly clock: Clock = REAL_CLOCK) {}

  has(image: string): boolean {
    const ref = parseImageReference(image);
    return !!ref && this.present.has(ref.normalized);
  }

  /** The platform entry an image resolves to on this node (or the failure), without pulling. */
  resolve(image: string, hostProcess = false) { return resolveImage(image, this.platform, this.userImages(), { hostProcess }); }

  /** EnsureImageExists for one container of a pod. */
  ensure(podUID: string, image: string, policy: string, hostProcess = false, now = this.clock.now()): EnsureResult {
    const ref = parseImageReference(image);
    if (!ref) {
      return { kind: 'failed', reason: 'InvalidImageName', events: [{ type: 'Warning', reason: 'InspectFailed', message: `Failed to apply default image tag "${image}": couldn't parse image name "${image}": invalid reference format` }],
        message: `Failed to apply default image tag "${image}": couldn't parse image name "${image}": invalid reference format` };
    }
    const resolution = this.resolve(image, hostProcess);
    const present = this.present.has(ref.normalized);
    const ready = (events: PullEvent[]): EnsureResult => {
      const sel = resolution.ok ? resolution.image : undefined;
      return { kind: 'ready', selection: sel!, image: ref.normalized, imageID: this.imageID(image, hostProcess), events };
    };
    if (policy === 'Never' || (policy !== 'Always' && present)) {
      if (present) return ready([{ type: 'Normal', reason: 'Pulled', message: `Container image "${image}" already present on machine` }]);
      const msg = `Container image "${image}" is not present with pull policy of Never`;
      return { kind: 'failed', reason: 'ErrImageNeverPull', message: msg, events: [{ type: 'Warning', reason: 'ErrImageNeverPull', message: msg }] };
    }
    const key = `${podUID}_${image}`;
    if (this.backoff.inBackOffSinceUpdate(key, now)) {
      let msg = `Back-off pulling image "${image}"`;
      const events: PullEvent[] = [{ type: 'Normal', reason: 'BackOff', message: msg }];
      const prev = this.prevPullErr.get(key);
      if (prev) msg = `${msg}: ${prev}`;
      return { kind: 'failed', reason: 'ImagePullBackOff', message: msg, events };
    }
    this.prevPullErr.delete(key);
    const pulling: PullEvent = { type: 'Normal', reason: 'Pulling', message: `Pulling image "${image}"` };
    // A pull of a present image only checks the registry: a tenth of the pull time.
    const ms = present ? Math.round(this.pullMs / 10) : this.pullMs;
    const finish = (): EnsureResult => {
      if (!resolution.ok && resolution.failure.stage === 'pull') {
        const f = resolution.failure;
        // A missing repository is the registry's authorization error, which CRI reports as code Unknown.
        const err = f.kind === 'unknown-tag'
          ? `rpc error: code = NotFound desc = failed to pull and unpack image "${ref.normalized}": failed to resolve reference "${ref.normalized}": ${f.message}`
          : f.kind === 'unknown-repository'
            ? `rpc error: code = Unknown desc = failed to pull and unpack image "${ref.normalized}": failed to resolve reference "${ref.normalized}": ${f.message}`
            : `rpc error: code = NotFound desc = failed to pull and unpack image "${ref.normalized}": ${f.message}`;
        this.backoff.next(key, this.clock.now());
        this.prevPullErr.set(key, `ErrImagePull: ${err}`);
        return { kind: 'failed', reason: 'ErrImagePull', message: err, failure: f,
          events: [{ type: 'Warning', reason: 'Failed', message: `Failed to pull image "${image}": ${err}` }] };
      }
      if (!this.present.has(ref.normalized)) { this.present.set(ref.normalized, this.imageID(image, hostProcess)); this.onChange(); }
      const size = imageSize(ref.name);
      return ready([{ type: 'Normal', reason: 'Pulled', message: `Successfully pulled image "${image}" in ${goDuration(ms)} (${goDuration(ms)} including waiting). Image size: ${size} bytes.` }]);
    };
    return { kind: 'pulling', ms, events: [pulling], finish };
  }

  /** The image ID the runtime reports for a reference: `<repository>@sha256:<digest of the platform entry used>`. */
  private imageID(image: string, hostProcess = false): string {
    const ref = parseImageReference(image)!;
    const resolution = this.resolve(image, hostProcess);
    const platform = (resolution.ok ? resolution.image.platform : resolution.failure.pulled) ?? { os: this.platform.os, architecture: this.platform.arch };
    const digest = imageDigest(ref.name + (ref.tag ? ':' + ref.tag : '') + (ref.digest ? '@' + ref.digest : ''), JSON.stringify(platform));
    return `${ref.name}@${ref.digest || digest}`;
  }

  /** Images the node holds (normalized references). */
  list(): string[] { return [...this.present.keys()]; }

  /** The images as the CRI lists them (repo digest, then the repo tag when the reference has one), with their sizes. */
  images(): ContainerImage[] {
    return [...this.present].map(([normalized, id]) => {
      const ref = parseImageReference(normalized)!;
      return { names: ref.tag ? [id, `${ref.name}:${ref.tag}`] : [id], sizeBytes: imageSize(ref.name) };
    });
  }
  forgetPod(podUID: string): void { this.backoff.deletePrefix(`${podUID}_`); for (const k of this.prevPullErr.keys()) if (k.startsWith(`${podUID}_`)) this.prevPullErr.delete(k); }
  /** Pre-pulled images (the pause image is on every node). */
  add(image: string): void { const r = parseImageReference(image); if (r && !this.present.has(r.normalized)) this.present.set(r.normalized, this.imageID(image)); }
}
