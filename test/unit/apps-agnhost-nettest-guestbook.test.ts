/**
 * agnhost nettest and guestbook, the update demo's images, and busybox
 * wget's --post-data, as their sources answer: bodies, headers, log lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agnhost } from '../../src/node/apps/agnhost.js';
import { decodeWritePost, nettestRead, nettestStatus, nettestWrite, type NettestState } from '../../src/node/apps/agnhost-nettest.js';
import { guestbookGet, queryGet, registeredStore } from '../../src/node/apps/agnhost-guestbook.js';
import { fileServerAnswer } from '../../src/node/apps/agnhost-test-webserver.js';
import { goMarshal } from '../../src/apimachinery/go-json.js';
import { applicationFor } from '../../src/node/apps/registry.js';
import { appNetwork, drain, NOW } from '../helpers/app-network.js';
import type { KObject } from '../../src/apimachinery/object.js';
import type { AppContext } from '../../src/node/apps/app-context.js';
import { ClusterNetwork, type NetworkLookups } from '../../src/node/net/cluster-network.js';
import { collect, ContainerFS, interpret } from '../../src/node/shell/index.js';
import type { Listening } from '../../src/node/shell/net-types.js';

const T = '2026/11/28 17:16:21';

test('nettest /write counts the source, /read is the tab-indented state, /status says running', () => {
  const n = appNetwork(8080);
  const p = agnhost(n.server(), ['nettest'])!;
  assert.deepEqual(drain(p), { stdout: '', stderr: '', code: 'forever', slept: 0 });
  assert.equal(n.curl('-s', 'http://web/read').stdout,
    '{\n\t"Hostname": "web-1",\n\t"Sent": null,\n\t"Received": null,\n\t"Errors": null,\n\t"Log": null,\n\t"StillContactingPeers": true\n}');
  assert.equal(n.run('linux', ['wget', '-q', '-O-', '--post-data={"Source": "prestop"}', 'http://web/write']).stdout, '{"Hostname":"web-1"}\n');
  assert.equal(n.run('linux', ['wget', '-q', '-O-', '--post-data', '{"source": "prestop"}', 'http://web/write']).stdout, '{"Hostname":"web-1"}\n');
  assert.equal(n.curl('-s', 'http://web/read').stdout,
    '{\n\t"Hostname": "web-1",\n\t"Sent": null,\n\t"Received": {\n\t\t"prestop": 2\n\t},\n\t"Errors": null,\n\t"Log": null,\n\t"StillContactingPeers": true\n}');
  assert.equal(n.curl('-s', 'http://web/status').stdout, 'running');
  assert.equal(n.curl('-s', '-o', '/dev/null', '-w', '%{http_code}', 'http://web/nope').stdout, '404');
});

test('nettest /write without a source: the decode error and the missing source land in Errors', () => {
  const s: NettestState = { hostname: 'server', stillContactingPeers: false };
  assert.equal(nettestWrite(s, ''), '{"Hostname":"server"}\n');
  nettestWrite(s, '{"Dest": "x"}');
  assert.deepEqual(s.errors, ['EOF', 'server: Got request with no source', 'server: Got request with no source']);
  assert.deepEqual(decodeWritePost('nope'), { error: "invalid character 'n' looking for beginning of value" });
  assert.deepEqual(decodeWritePost('{"Source": 3}'), { error: 'json: cannot unmarshal number into Go struct field WritePost.Source of type string' });
  assert.equal(nettestStatus(s, 8), 'fail');
  assert.match(nettestRead(s), /"Errors": \[\n\t\t"EOF",\n/);
});

test('nettest /quit exits 0 without answering; SIGTERM kills it (143) unless --delay-shutdown', () => {
  const n = appNetwork(8080);
  const p = agnhost(n.server(), ['nettest', '--port', '8080'])!;
  drain(p);
  assert.equal(n.curl('-sS', 'http://web/quit').stderr, 'curl: (56) Recv failure: Connection reset by peer\n');
  assert.equal(drain(p).code, 0);
  const q = agnhost(appNetwork(8080).server(), ['nettest', '--delay-shutdown=5'])!;
  drain(q);
  const t = q.terminate!()!;
  assert.deepEqual(drain({ next: () => t.next() }), { stdout: '', stderr: `${T} Sleeping 5 seconds before exit ...\n`, code: 0, slept: 5000 });
});

test('guestbook: /get of a missing key, /set then /get, the whole store; its log lines', () => {
  const n = appNetwork(80);
  const p = agnhost(n.server(), ['guestbook'])!;
  drain(p);
  assert.equal(n.curl('-s', 'http://web/get?key=messages').stdout, '{"data":""}');
  assert.equal(n.curl('-s', 'http://web/set?key=messages&value=Hi%20%3Cthere%3E').stdout, '{"message":"Updated"}');
  assert.equal(n.curl('-s', 'http://web/get?key=messages').stdout, '{"data":"Hi \\u003cthere\\u003e"}');
  assert.equal(n.curl('-s', 'http://web/get').stdout, '{"data":{"messages":"Hi \\u003cthere\\u003e"}}');
  assert.equal(n.curl('-si', 'http://web/set?key=').stdout,
    'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nDate: Sat, 28 Nov 2026 17:16:21 GMT\r\nContent-Length: 27\r\n\r\ncannot set with empty key.\n');
  assert.equal(drain(p).stderr, `${T} GET /get?key=messages\n${T} GET /set?key=messages&value=Hi <there>\n${T} GET /get?key=messages\n${T} GET /get?key=\n${T} GET /set?key=&value=\n`);
});

/** The guestbook's backends behind their Services, a frontend, and a client, in one cluster network. */
function guestbookNetwork() {
  const svc = (name: string, ip: string): KObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip], ports: [{ port: 6379, targetPort: 6379, protocol: 'TCP' }] } });
  const slice = (name: string, ip: string): KObject => ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: 'default', name: `${name}-x`, labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4', ports: [{ name: '', port: 6379, protocol: 'TCP' }], endpoints: [{ addresses: [ip], conditions: { ready: true, serving: true, terminating: false } }],
  });
  const services = [svc('agnhost-primary', '10.96.20.1'), svc('agnhost-replica', '10.96.20.2')];
  const slices = [slice('agnhost-primary', '10.244.1.10'), slice('agnhost-replica', '10.244.1.11')];
  const lookups: NetworkLookups = { services: () => services, service: (_ns, name) => services.find((x) => x.metadata.name === name), endpointSlices: () => slices };
  const net = new ClusterNetwork(lookups);
  const pods = { primary: '10.244.1.10', replica: '10.244.1.11', frontend: '10.244.1.12', client: '10.244.1.13' };
  for (const [name, ip] of Object.entries(pods)) net.attach(ip, { namespace: 'default', name, node: 'n' });
  const searches = ['default.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
  const ctx = (name: keyof typeof pods, over: Partial<AppContext> = {}): AppContext => ({
    net: net.forPod(pods[name], { os: 'linux', searches }, new Set<Listening>()), now: () => NOW, hostname: name, cpus: 2, env: {}, ...over,
  });
  const curl = (url: string) => collect(interpret(['curl', '-s', url], {
    os: 'linux', env: {}, hostname: 'client', fs: new ContainerFS('linux'), posixShell: 'ash',
    network: { podIP: pods.client, prefixLength: 24, dnsServers: ['10.96.0.10'], searches },
    net: net.forPod(pods.client, { os: 'linux', searches }, new Set<Listening>()),
  })).stdout;
  return { ctx, curl };
}

test('guestbook: a replica registers with the primary, the frontend sets through the primary and gets through the replica', () => {
  const g = guestbookNetwork();
  const primary = agnhost(g.ctx('primary'), ['guestbook', '--http-port', '6379'])!;
  drain(primary);
  const replica = agnhost(g.ctx('replica'), ['guestbook', '--replicaof', 'agnhost-primary', '--http-port', '6379'])!;
  assert.equal(drain(replica).stderr, `${T} Registering to primary: agnhost-primary:6379/register?host=10.244.1.11\n${T} Registered to node: agnhost-primary\n`);
  const frontend = agnhost(g.ctx('frontend'), ['guestbook', '--backend-port', '6379'])!;
  drain(frontend);
  const fe = 'http://10.244.1.12';
  assert.equal(g.curl(`${fe}/guestbook?cmd=get&key=messages&value=`), '{"data":""}');
  assert.equal(g.curl(`${fe}/guestbook?cmd=set&key=messages&value=TestEntry`), '{"message":"Updated"}');
  assert.equal(g.curl(`${fe}/guestbook?cmd=get&key=messages&value=`), '{"data":"TestEntry"}');
  assert.equal(g.curl(`${fe}/guestbook?cmd=Drop`), "unsupported cmd: 'drop'\n");
  assert.equal(drain(primary).stderr, `${T} GET /register?host=10.244.1.11\n${T} Node '10.244.1.11' registered.\n${T} GET /set?key=messages&value=TestEntry\n`);
  assert.equal(drain(replica).stderr, `${T} GET /get?key=messages\n${T} GET /set?key=messages&value=TestEntry\n${T} GET /get?key=messages\n`);
  assert.equal(drain(frontend).stderr, `${T} GET /guestbook?cmd=get&key=messages&value=\n${T} GET /guestbook?cmd=set&key=messages&value=TestEntry\n`
    + `${T} GET /guestbook?cmd=get&key=messages&value=\n${T} GET /guestbook?cmd=drop&key=&value=\n`);
});

test('guestbook replica: retries each second while the primary does not resolve, then log.Fatal after 15 s', () => {
  const n = appNetwork(6379);
  const timers: Array<{ at: number; fn: () => void }> = [];
  let clock = NOW.getTime();
  const ctx = { ...n.server({ now: () => new Date(clock), after: (ms: number, fn: () => void) => { timers.push({ at: clock + ms, fn }); } }) };
  // A pod whose resolver knows no cluster names.
  ctx.net = { ...ctx.net!, resolve: () => undefined };
  const p = agnhost(ctx, ['guestbook', '--replicaof', 'agnhost-primary', '--http-port', '6379'])!;
  let out = drain(p).stderr;
  let code: number | string = 'forever';
  while (timers.length) { const t = timers.shift()!; clock = t.at; t.fn(); const d = drain(p); out += d.stderr; code = d.code; }
  const lines = out.trimEnd().split('\n');
  assert.equal(lines[0], `${T} unable to get IP agnhost-primary:6379: dial udp: lookup agnhost-primary on 10.96.0.10:53: no such host. Retrying in 1s.`);
  assert.equal(lines.length, 16);
  assert.equal(lines[15], '2026/11/28 17:16:36 Timed out while registering to primary.');
  assert.equal(code, 1);
});

test('guestbook rules: query values, /get bodies, what a replica takes from the primary', () => {
  assert.equal(queryGet('/set?key=a+b&value=%7Bx%7D', 'key'), 'a b');
  assert.equal(queryGet('/set?key=a&key=b', 'key'), 'a');
  assert.equal(queryGet('/get', 'key'), '');
  assert.equal(guestbookGet({ a: '1' }, 'b'), '{"data":""}');
  assert.equal(guestbookGet({ a: '1' }, 'toString'), '{"data":""}');
  assert.deepEqual(registeredStore('{"data":{"messages":"x"}}'), { store: { messages: 'x' } });
  assert.deepEqual(registeredStore('{"data":"x"}'), { fatal: 'Could not cast responseJSON: x' });
  assert.equal(goMarshal({ b: [1, 'x'], a: null }), '{"a":null,"b":[1,"x"]}');
});

test('the update demo images: agnhost test-webserver serving their data.json with the handler headers', () => {
  const files = new Map([['/data.json', '{\n  "image": "nautilus.jpg"\n}\n']]);
  const ok = fileServerAnswer(NOW, 'GET', '/data.json', files).response;
  assert.equal(ok.status, 200);
  assert.equal(Buffer.from(ok.body).toString(), '{\n  "image": "nautilus.jpg"\n}\n');
  assert.deepEqual(ok.headers.map(([k]) => k), ['Accept-Ranges', 'Access-Control-Allow-Credentials', 'Access-Control-Allow-Headers', 'Access-Control-Allow-Methods',
    'Access-Control-Allow-Origin', 'Cache-Control', 'Content-Type', 'Date', 'Content-Length']);
  assert.equal(ok.headers.find(([k]) => k === 'Content-Type')?.[1], 'application/json');
  assert.equal(fileServerAnswer(NOW, 'GET', '/kitten.jpg', files).response.status, 404);
  const n = appNetwork(80);
  const app = applicationFor({ image: 'k8s.gcr.io/e2e-test-images/nautilus:1.5', command: [], args: [] })!;
  drain(app(n.server()));
  assert.equal(n.curl('-s', 'http://web/data.json').stdout, '{\n  "image": "nautilus.jpg"\n}\n');
  const kitten = applicationFor({ image: 'registry.k8s.io/e2e-test-images/kitten:1.5', command: [], args: [] });
  assert.ok(kitten);
  assert.equal(applicationFor({ image: 'registry.k8s.io/e2e-test-images/kitten:1.5', command: ['sh'], args: [] }), undefined);
});
