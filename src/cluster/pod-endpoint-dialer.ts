/**
 * The API server's way into the node farm's cluster network (network/pod-endpoint-dial.ts's
 * contract): an address in the pod network is dialled through the model, any other address is
 * left to a real socket. kube-apiserver runs in the control-plane node's host network, so its
 * calls to webhooks and extension API servers leave from that node: NetworkPolicy on the pods
 * judges them as traffic from a node (a default-deny ingress policy stops them; an ipBlock can let
 * them in). Without a control-plane node they leave from the pod's own stack, and without a
 * running node farm in this process (another server holds it, or `winkube agent` runs the nodes
 * elsewhere) nothing is modelled here.
 */
import type { PodEndpointConnection, PodEndpointDialer } from '../network/pod-endpoint-dial.js';
import type { ClusterNetwork } from '../node/net/cluster-network.js';
import { settled } from '../node/exec/port-forward.js';

export function clusterNetworkDialer(network: () => ClusterNetwork | undefined, apiServerNode?: string): PodEndpointDialer {
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
      if (!net?.inPodNetwork(ip)) return undefined;
      return connect(net, (apiServerNode && net.nodeAddress(apiServerNode)) || ip, ip, port);
    },
    dialFrom(from, ip, port) {
      const net = network();
      return net ? connect(net, from, ip, port) : { kind: 'timeout' };
    },
  };
}
