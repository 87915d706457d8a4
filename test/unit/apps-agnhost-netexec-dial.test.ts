/**
 * agnhost netexec's /dial and UDP server as netexec.go answers: the JSON of
 * responses and errors, the 400s for bad parameters, the UDP commands, and
 * the clients the conformance tests use (`curl -g -q -s`, `nc -w 1 -u`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agnhost } from '../../src/node/apps/agnhost.js';
import { dialBody, parseDial, runDial, udpTry } from '../../src/node/apps/agnhost-netexec-dial.js';
import { goJSONString } from '../../src/apimachinery/go-json.js';
import { Pending } from '../../src/node/shell/pending.js';
import { netexecDatagram } from '../../src/node/apps/agnhost-netexec-udp.js';
import { appNetwork, CLIENT_IP, drain, SERVER_IP } from '../helpers/app-network.js';

const T = '2026/11/28 17:16:21';

test('dial parameters: the handler\'s log line, defaults and its 400 texts in its order', () => {
  assert.deepEqual(parseDial('request=hostname&protocol=http&host=10.0.0.1&port=8083&tries=1'), {
    ok: true, params: { host: '10.0.0.1', port: '8083', request: 'hostname', protocol: 'http', tries: 1 },
    log: 'GET /dial?host=10.0.0.1&protocol=http&port=8083&request=hostname&tries=1',
  });
  const d = parseDial('request=echo%20hi&host=h&port=1');
  assert.equal(d.ok && `${d.params.protocol} ${d.params.tries} ${d.params.request}`, 'http 1 echo hi');
  assert.deepEqual(parseDial('request=x&tries=two'), { ok: false, status: 400, body: 'tries parameter is invalid. strconv.Atoi: parsing "two": invalid syntax\n', log: 'GET /dial?host=&protocol=&port=&request=x&tries=two' });
  assert.equal(parseDial('host=a&port=1').ok ? '' : (parseDial('host=a&port=1') as { body: string }).body, 'request parameter not specified. <nil>\n');
  const bad = parseDial('request=x&protocol=tcp&host=a&port=1');
  assert.equal(bad.ok ? '' : bad.body, 'unsupported protocol. tcp\n');
});

test('dial body: Go\'s json.Marshal of the map, sorted keys, responses only when the last try answered', () => {
  assert.equal(dialBody(['netserver-0'], [], true), '{"responses":["netserver-0"]}');
  assert.equal(dialBody(['a'], ['boom'], false), '{"errors":["boom"]}');
  assert.equal(dialBody(['a'], ['boom'], true), '{"errors":["boom"],"responses":["a"]}');
  assert.equal(dialBody([], [], false), '{}');
  assert.equal(goJSONString('<a&b>'), '"\\u003ca\\u0026b\\u003e"');
});

test('udp try: refused, timed out and answered reads as dialUDP reports them', () => {
  const local = { ip: '10.244.1.5', port: 40000 };
  const remote = { ip: '10.244.1.4', port: 8081 };
  assert.deepEqual(udpTry({ kind: 'refused', local }, remote),
    { ok: false, error: "reading from udp connection failed. err:'read udp 10.244.1.5:40000->10.244.1.4:8081: read: connection refused'", afterMs: 0 });
  assert.deepEqual(udpTry({ kind: 'unanswered', local }, remote),
    { ok: false, error: "reading from udp connection failed. err:'read udp 10.244.1.5:40000->10.244.1.4:8081: i/o timeout'", afterMs: 5000 });
  assert.deepEqual(udpTry({ kind: 'reply', local, payloads: ['web-1', 'second'] }, remote), { ok: true, text: 'web-1' });
});

test('UDP commands: hostname, echo (lower-cased), clientip, unknown', () => {
  const c = { ip: '10.244.1.4', port: 51000 };
  assert.deepEqual(netexecDatagram('hostName\n', 'web-1', c), { replies: ['web-1'], log: 'Sending udp hostName response' });
  assert.deepEqual(netexecDatagram('echo Hello World', 'web-1', c), { replies: ['hello world'], log: 'Echoing hello world to UDP client 10.244.1.4:51000' });
  assert.deepEqual(netexecDatagram('clientip', 'web-1', c), { replies: ['10.244.1.4:51000'], log: 'Sending clientip back to UDP client 10.244.1.4:51000' });
  assert.deepEqual(netexecDatagram('what', 'web-1', c), { replies: [], log: 'Unknown UDP command received from 10.244.1.4:51000: what' });
  assert.deepEqual(netexecDatagram('  \n', 'web-1', c), { replies: [] });
});

test('netexec /dial over http and udp through curl -g -q -s, with its log lines', () => {
  const n = appNetwork(8080);
  const p = agnhost(n.server(), ['netexec', '--http-port=8080', '--udp-port=8081'])!;
  drain(p);
  const dial = (q: string) => n.run('linux', ['sh', '-c', `curl -g -q -s 'http://${SERVER_IP}:8080/dial?${q}'`]);
  assert.deepEqual(dial(`request=hostname&protocol=http&host=${SERVER_IP}&port=8080&tries=1`), { stdout: '{"responses":["web-1"]}', stderr: '', code: 0, slept: 0 });
  assert.deepEqual(dial(`request=hostname&protocol=udp&host=${SERVER_IP}&port=8081&tries=2`), { stdout: '{"responses":["web-1","web-1"]}', stderr: '', code: 0, slept: 0 });
  assert.equal(dial(`request=echo%20Hi&protocol=udp&host=${SERVER_IP}&port=8081&tries=1`).stdout, '{"responses":["hi"]}');
  assert.equal(dial(`request=echo?msg=Hi&protocol=http&host=${SERVER_IP}&port=8080&tries=1`).stdout, '{"responses":["Hi"]}');
  const refused = dial(`request=hostname&protocol=http&host=${CLIENT_IP}&port=8080&tries=1`).stdout;
  assert.equal(refused, `{"errors":["Get \\"http://${CLIENT_IP}:8080/hostname\\": dial tcp ${CLIENT_IP}:8080: connect: connection refused"]}`);
  assert.match(dial(`request=hostname&protocol=udp&host=${CLIENT_IP}&port=8081&tries=1`).stdout,
    new RegExp(`^\\{"errors":\\["reading from udp connection failed. err:'read udp ${SERVER_IP}:\\d+-\\\\u003e${CLIENT_IP}:8081: read: connection refused'"\\]\\}$`));
  const r400 = n.run('linux', ['curl', '-si', `http://${SERVER_IP}:8080/dial?host=x&port=1`]);
  assert.equal(r400.stdout, 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nContent-Length: 39\r\n\r\nrequest parameter not specified. <nil>\n');
  const log = drain(p).stderr.split('\n').filter((l) => l.includes('/dial') || l.includes('udp') || l.includes('UDP'));
  assert.deepEqual(log.slice(0, 4), [
    `${T} GET /hostname`.replace('GET /hostname', `GET /dial?host=${SERVER_IP}&protocol=http&port=8080&request=hostname&tries=1`),
    `${T} Sending udp hostName response`,
    `${T} Sending udp hostName response`,
    `${T} GET /dial?host=${SERVER_IP}&protocol=udp&port=8081&request=hostname&tries=2`,
  ]);
});

test('the node-pod UDP check: echo hostName | nc -w 1 -u IP PORT prints the answer and waits a second', () => {
  const n = appNetwork(8080);
  drain(agnhost(n.server(), ['netexec', '--http-port=8080', '--udp-port=8081'])!);
  assert.deepEqual(n.run('linux', ['sh', '-c', `echo hostName | nc -w 1 -u ${SERVER_IP} 8081 | grep -v '^\\s*$'`]), { stdout: 'web-1\n', stderr: '', code: 0, slept: 1000 });
  // Nothing bound there: the ICMP port unreachable ends nc with 1, silently.
  assert.deepEqual(n.run('linux', ['sh', '-c', `echo hostName | nc -w 1 -u ${CLIENT_IP} 8081`]), { stdout: '', stderr: '', code: 1, slept: 0 });
  // The process ended: the kubelet closed its UDP socket too.
  n.exit();
  assert.equal(n.net.listening(SERVER_IP, 8081, 'UDP'), false);
});

test('dial over http to a server that never answers, and udp to an address nobody has: the 5 s timeouts', () => {
  const n = appNetwork(8080);
  n.net.listen(CLIENT_IP, 9000, 'TCP', () => new Pending());
  const timers: [number, () => void][] = [];
  const deps = { net: n.server().net!, after: (ms: number, fn: () => void) => { timers.push([ms, fn]); } };
  const http = runDial({ host: CLIENT_IP, port: '9000', request: 'hostname', protocol: 'http', tries: 1 }, deps);
  assert.deepEqual([http.settled, timers.map(([ms]) => ms)], [false, [5000]]);
  timers.shift()![1]();
  assert.deepEqual(http.value, { status: 200, body: `{"errors":["Get \\"http://${CLIENT_IP}:9000/hostname\\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"]}` });
  const udp = runDial({ host: '10.244.9.9', port: '8081', request: 'hostname', protocol: 'udp', tries: 1 }, deps);
  assert.deepEqual([udp.settled, timers.map(([ms]) => ms)], [false, [5000]]);
  timers.shift()![1]();
  assert.match(udp.value.body, /^\{"errors":\["reading from udp connection failed\. err:'read udp 10\.244\.1\.5:\d+-\\u003e10\.244\.9\.9:8081: i\/o timeout'"\]\}$/);
});

test('a second netexec whose UDP port is taken: the UDP goroutine\'s log.Fatalf ends the process with 1', () => {
  const n = appNetwork(8080);
  drain(agnhost(n.server(), ['netexec', '--http-port=8080', '--udp-port=8081'])!);
  assert.deepEqual(drain(agnhost(n.server(), ['netexec', '--http-port=8090', '--udp-port=8081'])!), {
    stdout: '', code: 1, slept: 0,
    stderr: `${T} Started HTTP server on port 8090\n${T} Error occurred: failed to create listener for UDP address :8081:listen udp :8081: bind: address already in use\n`,
  });
});
