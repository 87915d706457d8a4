/**
 * agnhost netexec's `/dial` (test/images/agnhost/netexec/netexec.go,
 * dialHandler): `?request=&protocol=http|udp&host=&port=&tries=` makes
 * `tries` requests, one after another, from the server's pod to host:port
 * and answers what came back as Go's json.Marshal of a map (keys sorted):
 * `{"errors":[...],"responses":[...]}`, each key only when it has
 * something ("responses" only when the last try answered, as the handler
 * tests the last response, not the list). Bad parameters are http.Error's
 * 400 with the handler's texts.
 *
 * - http: `GET http://<ip>:<port>/<request>` with a 5 s client timeout
 *   (for the connect and for the answer); the body whatever the status.
 * - udp: one datagram of `request` on a connected socket, one read of at
 *   most 2048 bytes with a 5 s deadline.
 * - sctp: not modelled (the model has no SCTP): answered as unsupported.
 */
import type { DatagramResult, Endpoint, PodNetAccess } from '../shell/net-types.js';
import { Pending } from '../shell/pending.js';
import { goJSONString } from '../../apimachinery/go-json.js';
import { goHttpGet } from './go-http-get.js';

/** http.Client's Timeout and the UDP read deadline netexec sets. */
export const DIAL_TIMEOUT_MS = 5000;

export interface DialParams { host: string; port: string; request: string; protocol: string; tries: number }

export type DialParse = { ok: true; params: DialParams; log: string } | { ok: false; status: 400; body: string; log?: string };

/** Go's strconv.Atoi: an optional sign and decimal digits. */
const ATOI = /^[+-]?\d+$/;

/** The handler's checks before it dials, in its order; `log` is its `GET /dial?...` line. */
export function parseDial(rawQuery: string): DialParse {
  const q = new URLSearchParams(rawQuery);
  const get = (k: string) => q.get(k) ?? '';
  const [host, port, request, protocol, tryParam] = [get('host'), get('port'), get('request'), get('protocol'), get('tries')];
  const log = `GET /dial?host=${host}&protocol=${protocol}&port=${port}&request=${request}&tries=${tryParam}`;
  if (tryParam !== '' && !ATOI.test(tryParam)) {
    return { ok: false, status: 400, body: `tries parameter is invalid. strconv.Atoi: parsing ${JSON.stringify(tryParam)}: invalid syntax\n`, log };
  }
  // The error printed is Atoi's, nil here.
  if (request === '') return { ok: false, status: 400, body: 'request parameter not specified. <nil>\n', log };
  const proto = protocol.toLowerCase();
  if (proto !== '' && proto !== 'http' && proto !== 'udp') return { ok: false, status: 400, body: `unsupported protocol. ${protocol}\n`, log };
  return { ok: true, params: { host, port, request, protocol: proto === '' ? 'http' : proto, tries: tryParam === '' ? 1 : Number(tryParam) }, log };
}

/** The handler's body: the map marshalled with sorted keys, "responses" only when the last try answered. */
export function dialBody(responses: readonly string[], errors: readonly string[], lastAnswered: boolean): string {
  const arr = (xs: readonly string[]) => `[${xs.map(goJSONString).join(',')}]`;
  const parts: string[] = [];
  if (errors.length) parts.push(`"errors":${arr(errors)}`);
  if (lastAnswered) parts.push(`"responses":${arr(responses)}`);
  return `{${parts.join(',')}}`;
}

/** The outcome of one try: the response text, or the error as `%v` prints it. */
export type TryOutcome = { ok: true; text: string } | { ok: false; error: string; afterMs: number };

/** One UDP try as netexec's dialUDP reports it. */
export function udpTry(r: DatagramResult, remote: Endpoint): TryOutcome {
  const conn = `read udp ${r.local.ip}:${r.local.port}->${remote.ip}:${remote.port}`;
  if (r.kind === 'refused') return { ok: false, error: `reading from udp connection failed. err:'${conn}: read: connection refused'`, afterMs: 0 };
  if (r.kind === 'unanswered' || r.payloads.length === 0) return { ok: false, error: `reading from udp connection failed. err:'${conn}: i/o timeout'`, afterMs: DIAL_TIMEOUT_MS };
  // One read of a 2048-byte buffer: the first datagram, cut there.
  const first = Buffer.from(r.payloads[0]!, 'utf8').subarray(0, 2048);
  if (first.length === 0) return { ok: false, error: "reading from udp connection failed. err:'<nil>'", afterMs: 0 };
  return { ok: true, text: first.toString('utf8') };
}

export interface DialDeps {
  net?: PodNetAccess;
  /** Runs fn after ms of the node's clock (a try's timeout); without it the wait is not modelled. */
  after?: (ms: number, fn: () => void) => void;
}

export type DialAnswer = { status: number; body: string };

/**
 * Runs the tries one after another; settles with the handler's answer. The
 * host is resolved first (net.ResolveTCPAddr / ResolveUDPAddr): a name that
 * does not resolve or a port that is not a number is the handler's 400.
 */
export function runDial(p: DialParams, deps: DialDeps): Pending<DialAnswer> {
  const done = new Pending<DialAnswer>();
  const ip = /^\d{1,3}(\.\d{1,3}){3}$/.test(p.host) ? p.host : deps.net?.resolve(p.host)?.[0];
  const port = p.port === '' ? 0 : /^\d+$/.test(p.port) ? Number(p.port) : NaN;
  if (ip === undefined || !Number.isInteger(port) || port > 65535) {
    const why = ip === undefined ? `lookup ${p.host}: no such host` : `address ${p.port}: invalid port`;
    done.settle({ status: 400, body: `host and/or port param are invalid. ${why}\n` });
    return done;
  }
  const responses: string[] = [];
  const errors: string[] = [];
  let lastAnswered = false;
  const wait = (ms: number, fn: () => void) => (ms > 0 && deps.after ? deps.after(ms, fn) : fn());
  const record = (o: TryOutcome, next: () => void) => {
    lastAnswered = o.ok && o.text.length > 0;
    if (o.ok) { responses.push(o.text); next(); return; }
    wait(o.afterMs, () => { errors.push(o.error); next(); });
  };
  const oneTry = (next: () => void) => {
    if (p.protocol === 'udp') {
      const r = deps.net?.sendDatagram?.(ip, port, p.request) ?? { kind: 'unanswered' as const, local: { ip: deps.net?.podIP ?? '', port: 0 } };
      record(udpTry(r, { ip, port }), next);
      return;
    }
    const got = goHttpGet(deps.net, ip, port, p.request, DIAL_TIMEOUT_MS, deps.after);
    got.onSettle(() => {
      const v = got.value;
      record(v.ok ? { ok: true, text: v.body } : { ok: false, error: v.error, afterMs: 0 }, next);
    });
  };
  let i = 0;
  const loop = () => {
    if (i >= p.tries) { done.settle({ status: 200, body: dialBody(responses, errors, lastAnswered) }); return; }
    i++;
    oneTry(loop);
  };
  loop();
  return done;
}
