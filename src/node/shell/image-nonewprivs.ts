/**
 * registry.k8s.io/e2e-test-images/nonewprivs (test/images/nonewprivs):
 * ENTRYPOINT the setuid-root `nnp`, which prints its effective uid and exits
 * 0. The setuid bit lifts it to 0 unless the process has no_new_privs, when
 * it keeps the caller's uid.
 */
import type { ProcessIdentity } from './types.js';

const NONEWPRIVS = /^(?:registry\.k8s\.io|k8s\.gcr\.io)\/e2e-test-images\/nonewprivs(?::[^/@]*)?(?:@.*)?$/;

export const isNonewprivsImage = (image: string | undefined): boolean => image !== undefined && NONEWPRIVS.test(image);

export function nnpOutput(who: ProcessIdentity): string {
  return `Effective uid: ${who.noNewPrivs ? who.uid : 0}\n`;
}
