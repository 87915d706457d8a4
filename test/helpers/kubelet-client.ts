/** The client the node farm and the kubelets are given in process, as src/cluster/start.ts builds it. */
import { APISERVER_LOOPBACK } from '../../src/client/identities.js';
import { LoopbackClient } from '../../src/client/loopback.js';
import type { Store } from '../../src/registry/store.js';

export function kubeletClient(store: Store): LoopbackClient {
  return new LoopbackClient(store, APISERVER_LOOPBACK, 'kubelet');
}
