import { KUBE_CONTROLLER_MANAGER } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import type { UserInfo } from '../../src/client/types.js';
import type { Store } from '../../src/registry/store.js';

/** An in-process client of a test's store, as kube-controller-manager unless told otherwise. */
export function loopback(store: Store, user: UserInfo = KUBE_CONTROLLER_MANAGER, fieldManager = 'kube-controller-manager'): LoopbackClient {
  return new LoopbackClient(store, user, fieldManager);
}
