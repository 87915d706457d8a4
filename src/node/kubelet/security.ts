/**
 * verifyRunAsNonRoot (pkg/kubelet/kuberuntime/security_context_others.go
 * and security_context_windows.go): a container that must not run as root
 * but would is refused at container config time (CreateContainerConfigError).
 * The image's user is the model's: the catalog's Linux images run as root,
 * Windows Server Core / Server images as ContainerAdministrator, Nano Server
 * as ContainerUser; other images are not checked (their USER is unknown).
 */
import { parseImageReference } from '../../os/images.js';
import { formatPod } from './format.js';

type Obj = Record<string, any>;

const LINUX_ROOT_IMAGES = ['docker.io/library/busybox', 'docker.io/library/alpine', 'docker.io/library/ubuntu', 'docker.io/library/nginx',
  'registry.k8s.io/e2e-test-images/agnhost'];

/** The image's configured user in the model: {uid} on Linux, {username} on Windows, undefined when unknown. */
export function imageUser(image: string, os: 'linux' | 'windows'): { uid?: number; username?: string } | undefined {
  const ref = parseImageReference(image);
  if (!ref) return undefined;
  if (os === 'linux') return LINUX_ROOT_IMAGES.includes(ref.name) ? { uid: 0 } : undefined;
  if (/^mcr\.microsoft\.com\/windows\/(servercore|server)$|^mcr\.microsoft\.com\/windows$|^mcr\.microsoft\.com\/dotnet\/framework\//.test(ref.name)) return { username: 'ContainerAdministrator' };
  if (ref.name === 'mcr.microsoft.com/windows/nanoserver' || /nanoserver/.test(ref.tag)) return { username: 'ContainerUser' };
  if (/windowsservercore/.test(ref.tag)) return { username: 'ContainerAdministrator' };
  return undefined;
}

/** The error text, or undefined when the container may run. */
export function verifyRunAsNonRoot(pod: { metadata: Obj; spec?: Obj }, container: Obj, os: 'linux' | 'windows'): string | undefined {
  const psc = pod.spec?.securityContext ?? {};
  const csc = container.securityContext ?? {};
  const runAsNonRoot = csc.runAsNonRoot ?? psc.runAsNonRoot;
  if (runAsNonRoot !== true) return undefined;
  const who = `(pod: ${JSON.stringify(formatPod(pod as any))}, container: ${container.name})`;
  const user = imageUser(container.image, os);
  if (os === 'windows') {
    const name: string | undefined = csc.windowsOptions?.runAsUserName ?? psc.windowsOptions?.runAsUserName;
    if (name !== undefined) {
      return name.toLowerCase() === 'containeradministrator'
        ? `container's runAsUserName (${name}) which will be regarded as root identity and will break non-root policy ${who}` : undefined;
    }
    if (user?.username && user.username.toLowerCase() === 'containeradministrator') {
      return `container's runAsUser (${user.username}) which will be regarded as root identity and will break non-root policy ${who}`;
    }
    return undefined;
  }
  const runAsUser = csc.runAsUser ?? psc.runAsUser;
  if (runAsUser !== undefined && runAsUser !== null) return runAsUser === 0 ? `container's runAsUser breaks non-root policy ${who}` : undefined;
  if (user?.uid === 0) return `container has runAsNonRoot and image will run as root ${who}`;
  return undefined;
}
