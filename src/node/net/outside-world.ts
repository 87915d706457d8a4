/**
 * The world outside the cluster, as a lab network sees it: a few named
 * hosts on documentation addresses (RFC 5737 TEST-NET-2 and -3, names of
 * RFC 2606's reserved domains), so nothing here pretends to be a real
 * Internet host:
 *
 *   172.18.0.1      the machines' network gateway and the nodes'
 *                   resolv.conf nameserver: a recursive resolver answering
 *                   the public names below, NXDOMAIN for anything else
 *   203.0.113.10    example.com, www.example.com: HTTP on 80, the IANA
 *                   example page
 *   203.0.113.20    ip.example.net: HTTP on 80, answers with the address the
 *                   connection came from (what OutboundNAT left of it)
 *   198.51.100.53   a corporate DNS server, authoritative for corp.example
 *                   only (REFUSED for other names): the target of a
 *                   stubDomain / `corp.example:53 { forward . 198.51.100.53 }`
 *   198.51.100.80   intranet.corp.example: HTTP on 80, known to the
 *                   corporate DNS only
 *
 * Every host answers ping. Port 443 accepts connections, but TLS is not
 * modelled: a TLS client fails at its handshake, a plain request is reset.
 * Other ports of these hosts refuse (RST); any other address drops the
 * packets (a connection times out, a ping gets no reply).
 */
import type { ZoneAnswer, QType } from './dns-records.js';
import type { ResourceRecord } from './dns-wire.js';
import type { ConnectResult, Endpoint, HttpReply, HttpRequest, HttpResponse, PingResult } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';

/** The machines' network (node-object.ts internalIP: .1 is the gateway, nodes from .2). */
export const NODE_SUBNET = '172.18.0.0/16';
/** The nameserver of the nodes' /etc/resolv.conf: CoreDNS's `forward . /etc/resolv.conf` goes there. */
export const NODE_RESOLVER = '172.18.0.1';

type Service = (req: HttpRequest, client: Endpoint) => HttpResponse;

interface OutsideHost {
  ip: string;
  http?: Service;
  dns?: (name: string, qtype: QType) => ZoneAnswer;
}

/** example.com's page as IANA serves it. */
export const EXAMPLE_PAGE = `<!doctype html>
<html>
<head>
    <title>Example Domain</title>

    <meta charset="utf-8" />
    <meta http-equiv="Content-type" content="text/html; charset=utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style type="text/css">
    body {
        background-color: #f0f0f2;
        margin: 0;
        padding: 0;
        font-family: -apple-system, system-ui, BlinkMacSystemFont, "Segoe UI", "Open Sans", "Helvetica Neue", Helvetica, Arial, sans-serif;
        
    }
    div {
        width: 600px;
        margin: 5em auto;
        padding: 2em;
        background-color: #fdfdff;
        border-radius: 0.5em;
        box-shadow: 2px 3px 7px 2px rgba(0,0,0,0.02);
    }
    a:link, a:visited {
        color: #38488f;
        text-decoration: none;
    }
    @media (max-width: 700px) {
        div {
            margin: 0 auto;
            width: auto;
        }
    }
    </style>    
</head>

<body>
<div>
    <h1>Example Domain</h1>
    <p>This domain is for use in illustrative examples in documents. You may use this
    domain in literature without prior coordination or asking for permission.</p>
    <p><a href="https://www.iana.org/domains/example">More information...</a></p>
</div>
</body>
</html>
`;

export const INTRANET_PAGE = '<html><body><h1>corp.example intranet</h1></body></html>\n';

/** Public names the nodes' resolver answers. */
const PUBLIC_NAMES: Record<string, string> = {
  'example.com': '203.0.113.10',
  'www.example.com': '203.0.113.10',
  'ip.example.net': '203.0.113.20',
};
const PUBLIC_ZONES = ['example.com', 'example.net'];
const CORP_ZONE = 'corp.example';
const CORP_NAMES: Record<string, string> = { 'intranet.corp.example': '198.51.100.80', 'ns.corp.example': '198.51.100.53' };

const ANSWER_TTL = 300;

function page(body: string, type: string): Service {
  return (req) => {
    const bytes = Buffer.from(body);
    return {
      status: 200, reason: 'OK',
      headers: [['Content-Type', type], ['Content-Length', String(bytes.length)]],
      body: req.method === 'HEAD' ? new Uint8Array() : bytes,
    };
  };
}

function soa(zone: string): ResourceRecord {
  const owner = zone === '.' ? '.' : `${zone}.`;
  return zone === '.'
    ? { name: owner, ttl: 86400, type: 'SOA', mname: 'a.root-servers.net.', rname: 'nstld.verisign-grs.com.', serial: 2026112800, refresh: 1800, retry: 900, expire: 604800, minimum: 86400 }
    : zone === CORP_ZONE
      ? { name: owner, ttl: 3600, type: 'SOA', mname: 'ns.corp.example.', rname: 'hostmaster.corp.example.', serial: 1, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 }
      : { name: owner, ttl: 3600, type: 'SOA', mname: 'ns.icann.org.', rname: 'noc.dns.icann.org.', serial: 2025011636, refresh: 7200, retry: 3600, expire: 1209600, minimum: 3600 };
}

const under = (name: string, zone: string) => name === zone || name.endsWith(`.${zone}`);

/** A zone's answer from its A records: the address, NODATA for another type, NXDOMAIN for an unknown name. */
function zoneAnswer(name: string, qtype: QType, names: Record<string, string>, zone: string, authoritative: boolean): ZoneAnswer {
  const ip = names[name];
  const exists = ip !== undefined || name === zone;
  const base = { authoritative, recursionAvailable: !authoritative, additional: [] };
  if (ip !== undefined && qtype === 'A') return { ...base, rcode: 'NOERROR', answer: [{ name: `${name}.`, ttl: ANSWER_TTL, type: 'A', address: ip }], authority: [] };
  return { ...base, rcode: exists ? 'NOERROR' : 'NXDOMAIN', answer: [], authority: [soa(zone)] };
}

/** The nodes' resolver: recursion over the outside world's public names. */
function publicResolver(fqdn: string, qtype: QType): ZoneAnswer {
  const name = fqdn.toLowerCase().replace(/\.$/, '');
  const zone = PUBLIC_ZONES.find((z) => under(name, z));
  if (zone) return zoneAnswer(name, qtype, PUBLIC_NAMES, zone, false);
  return { rcode: 'NXDOMAIN', authoritative: false, recursionAvailable: true, answer: [], authority: [soa('.')], additional: [] };
}

/** The corporate DNS server: authoritative for its zone, no recursion. */
function corporateDNS(fqdn: string, qtype: QType): ZoneAnswer {
  const name = fqdn.toLowerCase().replace(/\.$/, '');
  if (!under(name, CORP_ZONE)) return { rcode: 'REFUSED', authoritative: false, recursionAvailable: false, answer: [], authority: [], additional: [] };
  return zoneAnswer(name, qtype, CORP_NAMES, CORP_ZONE, true);
}

const HOSTS: readonly OutsideHost[] = [
  { ip: NODE_RESOLVER, dns: publicResolver },
  { ip: '203.0.113.10', http: page(EXAMPLE_PAGE, 'text/html') },
  { ip: '203.0.113.20', http: (req, client) => page(`${client.ip}\n`, 'text/plain')(req, client) },
  { ip: '198.51.100.53', dns: corporateDNS },
  { ip: '198.51.100.80', http: page(INTRANET_PAGE, 'text/html') },
];

export class OutsideWorld {
  private readonly hosts = new Map(HOSTS.map((h) => [h.ip, h]));

  /** Whether a host of the outside world has this address. */
  has(ip: string): boolean {
    return this.hosts.has(ip);
  }

  /**
   * A TCP connection to ip:port; `seenFrom` is the source the host sees
   * (after the node's SNAT), `local` the client's own end.
   */
  connect(local: Endpoint, seenFrom: Endpoint, ip: string, port: number): ConnectResult {
    const host = this.hosts.get(ip);
    if (!host) return { kind: 'timeout' };
    const serve = port === 80 ? host.http : undefined;
    if (!serve && port !== 443) return { kind: 'refused' };
    return {
      kind: 'connected', local, remote: { ip, port },
      exchange: (req: HttpRequest): Pending<HttpReply> => Pending.of<HttpReply>(serve ? serve(req, seenFrom) : 'reset'),
    };
  }

  /** An ICMP echo: every host of the outside world answers. */
  ping(ip: string): PingResult {
    return this.hosts.has(ip) ? { kind: 'reply', from: ip } : { kind: 'timeout' };
  }

  /** The answer of a DNS server at `ip`; undefined when nothing answers DNS there (the query times out). */
  dns(ip: string, name: string, qtype: QType): ZoneAnswer | undefined {
    return this.hosts.get(ip)?.dns?.(name, qtype);
  }
}
