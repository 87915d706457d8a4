/**
 * pods/portforward over SPDY/3.1, subprotocol portforward.k8s.io (kubelet's
 * cri/streaming/portforward/httpstream.go): for each forwarded connection the
 * client opens an error stream and a data stream sharing a `requestID`
 * header, the data stream naming the pod's `port`. Once both exist the
 * connection is relayed; a failure is written to the error stream as
 * "error forwarding port <port> to pod <pod>, uid <uid>: <cause>".
 */
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from './spdy/session.js';
import type { PortForwardTarget } from '../../apimachinery/port-forward.js';
import { relayHttp } from './http-relay.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';


interface Pair { data?: SpdyStream; error?: SpdyStream }

/** Serves the port-forward streams of one SPDY connection until it closes. */
export function servePortForwardSpdy(socket: Duplex, head: Buffer, target: PortForwardTarget): SpdySession {
  const pairs = new Map<string, Pair>();
  const session = new SpdySession(socket, (stream) => {
    // Clients before requestID existed get one per stream pair from the stream ids (kubelet's requestID()).
    const requestID = stream.header('requestid') ?? String(stream.header('streamtype') === 'data' ? stream.id - 2 : stream.id);
    const type = stream.header('streamtype');
    if (type !== 'data' && type !== 'error') { stream.reset(); return; }
    const pair = pairs.get(requestID) ?? {};
    pairs.set(requestID, pair);
    if (pair[type]) { stream.reset(); return; }
    pair[type] = stream;
    if (pair.data && pair.error) {
      pairs.delete(requestID);
      void forward(pair.data, pair.error, target);
    }
  }, head);
  session.on('close', () => pairs.clear());
  return session;
}

async function forward(data: SpdyStream, error: SpdyStream, target: PortForwardTarget): Promise<void> {
  const portHeader = data.header('port') ?? '';
  const port = Number(portHeader);
  const fail = (cause: string) => {
    error.write(`error forwarding port ${portHeader} to pod ${target.pod}, uid ${target.uid}: ${cause}`);
    error.end();
    data.end();
  };
  if (!/^\d+$/.test(portHeader) || port > 65535) return fail(`strconv.ParseUint: parsing ${JSON.stringify(portHeader)}: invalid syntax`);
  const result = await target.dial(port).catch((e: unknown): Awaited<ReturnType<PortForwardTarget['dial']>> => ({ kind: 'failed', message: (e as Error).message }));
  if (result.kind === 'failed') return fail(result.message);
  relayHttp({
    onData: (f) => data.on('data', f),
    onEnd: (f) => { data.on('end', f); data.on('reset', f); },
    write: (b) => data.write(b),
    end: () => { data.end(); error.end(); },
    reset: () => { data.reset(); error.end(); },
  }, (req) => result.exchange(req));
}
