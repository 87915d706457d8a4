/**
 * `winkube up --dns-port PORT`: the cluster DNS served on this machine, so
 * `dig @127.0.0.1 -p PORT kubernetes.default.svc.cluster.local` gets what a
 * pod's resolver gets. It watches Services, EndpointSlices and Namespaces as
 * CoreDNS does, and its zone serial is the time of the last change it saw (CoreDNS's
 * kubernetes plugin Serial: the cache's last-modified Unix time). Every
 * change it sees drops the server's encoded answers. Names outside the
 * cluster zone go where the kube-system/coredns ConfigMap's Corefile sends
 * them (its forward and stub-domain blocks), into the outside world.
 */
import type { Client } from '../client/types.js';
import { InformerFactory } from '../client/informer-factory.js';
import { configmaps, endpointslices, namespaces, services } from '../client/resources.js';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { CoreDNS } from '../node/net/coredns.js';
import { OutsideWorld } from '../node/net/outside-world.js';
import { dnsRecordSources } from '../node/net/dns-sources.js';
import { startDNSServer, type RunningDNSServer } from '../node/net/dns-server.js';
import { CLUSTER_DNS_IP, DNS_DOMAIN } from '../node/network.js';

export async function serveClusterDNS(client: Client, host: string, port: number, log: (line: string) => void = () => {}): Promise<RunningDNSServer> {
  const informers = new InformerFactory(client);
  let modified = Math.floor(Date.now() / 1000);
  let generation = 0;
  const touch = () => { modified = Math.floor(Date.now() / 1000); generation++; };
  const svcs = await informers.inform(services, touch);
  const slices = await informers.inform(endpointslices, touch);
  const nss = await informers.inform(namespaces, touch);
  const cms = await informers.inform(configmaps, (_type, o) => {
    if (o.metadata.namespace === 'kube-system' && o.metadata.name === 'coredns') generation++;
  });
  const coreDNS = new CoreDNS(() => cms.cache.get('kube-system', 'coredns') as ConfigMap | undefined, new OutsideWorld(), (m) => log(`coredns: ${m}`));
  const sources = dnsRecordSources({
    services: () => svcs.cache.list('*'),
    service: (ns, name) => svcs.cache.get(ns, name),
    endpointSlices: (ns) => slices.cache.list(ns),
  }, { serial: () => modified, generation: () => generation, namespaceExists: (ns) => nss.cache.get('', ns) !== undefined });
  try {
    const server = await startDNSServer({ host, port, sources, domain: DNS_DOMAIN, dnsIP: CLUSTER_DNS_IP, coreDNS });
    return { port: server.port, close: async () => { informers.stop(); await server.close(); } };
  } catch (e) {
    informers.stop();
    throw e;
  }
}
