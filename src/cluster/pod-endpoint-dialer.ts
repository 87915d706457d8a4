/**
 * The API server's way into the node farm's cluster network (network/pod-endpoint-dial.ts's
 * contract): an address in the pod network is dialled through the model, as the kubelet's
 * port-forward reaches a pod (from the pod's own stack, so no NetworkPolicy applies); any other
 * address is left to a real socket. Without a running node farm in this process (another server
 * holds it, or `winkube agent` runs the nodes elsewhere) nothing is modelled here.
 */
import type { PodEndpointConnection, PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import type { ClusterNetwork } from '../node/net/cluster-network.js';
import { settled } from '../node/exec/port-forward.js';

export function clusterNetworkDialer(network: () => ClusterNetwork | undefined): PodEndpointDialer {
  return {
    dial(ip: string, port: number): PodEndpointConnection | undefined {
      const net = network();
      if (!net?.inPodNetwork(ip)) return undefined;
      const conn = net.connect(ip, ip, port);
      if (conn.kind !== 'connected') return conn;
      return {
        kind: 'connected',
        ...(conn.serverCertificate !== undefined ? { serverCertificate: conn.serverCertificate } : {}),
        exchange: (req) => settled(conn.exchange(req)),
      };
    },
  };
}
