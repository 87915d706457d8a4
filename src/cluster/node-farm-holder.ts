/**
 * `winkube node` on a server that does not hold the `kube-system/winkube-node-farm` Lease: its
 * emulated machines are not running here, so adding, stopping or starting one would boot a second
 * kubelet for a Node another server runs. It is refused with a Status naming the Lease.
 */
import { StatusError } from '../apimachinery/errors.js';
import type { NodeControlHandler } from './node-control-endpoint.js';
import { NODE_FARM_LEASE } from './leader-elected.js';

export function onlyInNodeFarmHolder(handler: NodeControlHandler, holdsNodeFarm: () => boolean): NodeControlHandler {
  return (req, res, path, user) => {
    if (holdsNodeFarm()) return handler(req, res, path, user);
    throw new StatusError({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 503, reason: 'ServiceUnavailable',
      message: `the emulated nodes run in the server holding the kube-system/${NODE_FARM_LEASE} Lease, not in this one`,
    });
  };
}
