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
  const connect = (net: ClusterNetwork, from: string, ip: string, port: number): PodEndpointConnection => {
    const conn = net.connect(from, ip, port);
    if (conn.kind !== 'connected') return conn;
    return {
      kind: 'connected',
      ...(conn.serverCertificate !== undefined ? { serverCertificate: conn.serverCertificate } : {}),
      exchange: (req) => settled(conn.exchange(req)),
    };
  };
  return {
    dial(ip, port) {
      const net = network();
      return net?.inPodNetwork(ip) ? connect(net, ip, ip, port) : undefined;
    },
    dialFrom(from, ip, port) {
      const net = network();
      return net ? connect(net, from, ip, port) : { kind: 'timeout' };
    },
  };
}
