/**
 * The DNS benchmark's load (a worker thread of bench/dns.ts): keeps
 * `window` queries in flight on each of `sockets` UDP sockets until
 * `queries` are answered, and reports the elapsed time.
 */
import { createSocket, type Socket } from 'node:dgram';
import { parentPort, workerData } from 'node:worker_threads';
import { encodeQuery } from '../src/node/net/dns-wire.js';

export interface DNSLoadResult { answered: number; lost: number; ms: number; rcodes: Record<number, number> }

interface Load { port: number; queries: number; sockets: number; window: number; names: [string, number][] }

if (parentPort) {
  const load = workerData as Load;
  const started = performance.now();
  let sent = 0;
  let answered = 0;
  let lost = 0;
  const rcodes: Record<number, number> = {};
  const packets = load.names.map(([name, type]) => encodeQuery(0, name, type));
  const done = new Promise<void>((resolve) => {
    const sockets: Socket[] = [];
    for (let s = 0; s < load.sockets; s++) {
      const sock = createSocket('udp4');
      sockets.push(sock);
      // id → [packet, sent at]
      const inflight = new Map<number, [Buffer, number]>();
      let nextId = 0;
      const send = () => {
        if (sent >= load.queries) return;
        sent++;
        const id = nextId = (nextId + 1) & 0xffff;
        const p = Buffer.from(packets[sent % packets.length]!);
        p.writeUInt16BE(id, 0);
        inflight.set(id, [p, performance.now()]);
        sock.send(p, load.port, '127.0.0.1');
      };
      sock.on('message', (m) => {
        const id = m.readUInt16BE(0);
        if (!inflight.delete(id)) return;
        answered++;
        const rcode = m.readUInt16BE(2) & 0xf;
        rcodes[rcode] = (rcodes[rcode] ?? 0) + 1;
        if (answered >= load.queries) { for (const x of sockets) x.close(); resolve(); return; }
        send();
      });
      const resend = setInterval(() => {
        const now = performance.now();
        for (const [p, at] of inflight.values()) {
          if (now - at < 1000) continue;
          lost++;
          inflight.set(p.readUInt16BE(0), [p, now]);
          sock.send(p, load.port, '127.0.0.1');
        }
      }, 250);
      sock.once('close', () => clearInterval(resend));
      sock.bind(0, '127.0.0.1', () => { for (let i = 0; i < load.window; i++) send(); });
    }
  });
  await done;
  const result: DNSLoadResult = { answered, lost, ms: performance.now() - started, rcodes };
  parentPort.postMessage(result);
}
