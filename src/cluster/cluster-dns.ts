/**
 * `winkube up --dns-port PORT`: the cluster DNS served on this machine, so
 * `dig @127.0.0.1 -p PORT kubernetes.default.svc.cluster.local` gets what a
 * pod's resolver gets. It watches Services, EndpointSlices and Namespaces as
 * CoreDNS does, and its zone serial is the time of the last change it saw (CoreDNS's
 * kubernetes plugin Serial: the cache's last-modified Unix time). Every
 * change it sees drops the server's encoded answers.
 */
import type { Client } from '../client/types.js';
import { InformerFactory } from '../client/informer-factory.js';
import { endpointslices, namespaces, services } from '../client/resources.js';
import { dnsRecordSources } from '../node/net/dns-sources.js';
import { startDNSServer, type RunningDNSServer } from '../node/net/dns-server.js';
import { CLUSTER_DNS_IP, DNS_DOMAIN } from '../node/network.js';

export async function serveClusterDNS(client: Client, host: string, port: number): Promise<RunningDNSServer> {
  const informers = new InformerFactory(client);
  let modified = Math.floor(Date.now() / 1000);
  let generation = 0;
  const touch = () => { modified = Math.floor(Date.now() / 1000); generation++; };
  const svcs = await informers.inform(services, touch);
  const slices = await informers.inform(endpointslices, touch);
  const nss = await informers.inform(namespaces, touch);
  const sources = dnsRecordSources({
    services: () => svcs.cache.list('*'),
    service: (ns, name) => svcs.cache.get(ns, name),
    endpointSlices: (ns) => slices.cache.list(ns),
  }, { serial: () => modified, generation: () => generation, namespaceExists: (ns) => nss.cache.get('', ns) !== undefined });
  try {
    const server = await startDNSServer({ host, port, sources, domain: DNS_DOMAIN, dnsIP: CLUSTER_DNS_IP });
    return { port: server.port, close: async () => { informers.stop(); await server.close(); } };
  } catch (e) {
    informers.stop();
    throw e;
  }
}
