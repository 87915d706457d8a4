/**
 * API aggregation to an extension API server: a small HTTPS server with its own CA serves the
 * wardle.example.com/v1alpha1 group version, reached through a selector-less Service and
 * hand-written Endpoints named by an APIService with a caBundle. The availability controller
 * checks it, kubectl reads through the aggregator's proxy (the server sees the user in
 * X-Remote-* headers and the front-proxy client certificate), and the conditions and the proxy
 * answer as kube-apiserver v1.32 does when the backend fails or the Service goes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import os from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import tls from 'node:tls';
import { startCluster, kubectlOk, raw, rawJSON, eventually, removeDir, credentials, type TestCluster } from '../helpers/cluster.js';
import { createCA, issue } from '../../src/pki/issue.js';

let cluster: TestCluster;
let backend: https.Server;
let port = 0;
/** Endpoints may not name loopback (ValidateNonSpecialIP): the server listens on this machine's first non-loopback IPv4 address too. */
let hostIP = '';
let discoveryStatus = 200;
let upgradeUser = '';
const seen: { path: string; user: string; groups: string[]; extra: string[]; cn: string; authorization?: string }[] = [];

const GV = '/apis/wardle.example.com/v1alpha1';
const resourceList = { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'wardle.example.com/v1alpha1', resources: [{ name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'] }] };
const flunders = { kind: 'FlunderList', apiVersion: 'wardle.example.com/v1alpha1', metadata: { resourceVersion: '1' }, items: [{ kind: 'Flunder', apiVersion: 'wardle.example.com/v1alpha1', metadata: { name: 'one', namespace: 'default' } }] };

before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  hostIP = Object.values(os.networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '';
  assert.ok(hostIP, 'this test needs a non-loopback IPv4 address');
  const ca = await createCA('CN=wardle-ca');
  const cert = await issue(ca, 'CN=wardle-api', 'server', { dns: ['wardle-api.wardle.svc'], ip: [] });
  // The extension server trusts the front-proxy CA kube-apiserver publishes.
  const frontProxyCA = readFileSync(join(cluster.dataDir, 'pki', 'front-proxy-ca.crt'), 'utf8');
  backend = https.createServer({ cert: cert.cert, key: cert.key, ca: frontProxyCA, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    const lines = (name: string) => {
      const out: string[] = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === name) out.push(req.rawHeaders[i + 1]!);
      return out;
    };
    seen.push({
      path: req.url ?? '', user: String(req.headers['x-remote-user']), groups: lines('x-remote-group'),
      extra: Object.keys(req.headers).filter((h) => h.startsWith('x-remote-extra-')),
      cn: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN), authorization: req.headers.authorization,
    });
    const path = (req.url ?? '').split('?')[0];
    const send = (code: number, body: unknown) => { res.writeHead(code, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    if (path === GV) return discoveryStatus === 200 ? send(200, resourceList) : send(discoveryStatus, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: discoveryStatus });
    if (path === `${GV}/namespaces/default/flunders` && req.method === 'POST') {
      let body = '';
      req.on('data', (c: Buffer) => { body += c.toString(); });
      req.on('end', () => send(201, { ...JSON.parse(body), metadata: { name: 'two', namespace: 'default' } }));
      return;
    }
    if (path === `${GV}/namespaces/default/flunders` || path === `${GV}/flunders`) return send(200, flunders);
    send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  // An upgrade (a port-forward of the extension API): switched, then an echo.
  backend.on('upgrade', (req: import('node:http').IncomingMessage, socket: import('node:stream').Duplex) => {
    upgradeUser = String(req.headers['x-remote-user']);
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
    socket.on('data', (d: Buffer) => socket.write(`echo:${d.toString()}`));
  });
  await new Promise<void>((r) => backend.listen(0, '0.0.0.0', r));
  port = (backend.address() as AddressInfo).port;
  await kubectlOk(cluster, ['create', 'namespace', 'wardle']);
  await kubectlOk(cluster, ['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'wardle-api', namespace: 'wardle' }, spec: { ports: [{ name: 'https', port: 443 }] } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'wardle-api', namespace: 'wardle' }, subsets: [{ addresses: [{ ip: hostIP }], ports: [{ name: 'https', port }] }] },
      {
        apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1alpha1.wardle.example.com' },
        spec: { group: 'wardle.example.com', version: 'v1alpha1', service: { namespace: 'wardle', name: 'wardle-api' }, caBundle: Buffer.from(ca.cert).toString('base64'), groupPriorityMinimum: 1000, versionPriority: 15 },
      },
    ],
  }));
});

after(async () => {
  await cluster?.stop();
  backend?.closeAllConnections();
  await new Promise((r) => backend?.close(r));
  if (cluster) removeDir(cluster.dataDir);
});

const clusterIP = async () => (await rawJSON(cluster, 'GET', '/api/v1/namespaces/wardle/services/wardle-api')).body.spec.clusterIP as string;
const availability = () => kubectlOk(cluster, ['get', 'apiservice', 'v1alpha1.wardle.example.com', '--no-headers', '-o', 'custom-columns=S:.status.conditions[0].status,R:.status.conditions[0].reason,M:.status.conditions[0].message']);

test('kube-system/extension-apiserver-authentication names the front proxy and its CA', async () => {
  const cm = (await rawJSON(cluster, 'GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body;
  assert.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]');
  assert.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.equal(cm.data['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.equal(cm.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  assert.equal(cm.data['requestheader-uid-headers'], '[]');
  const frontProxyCA = readFileSync(join(cluster.dataDir, 'pki', 'front-proxy-ca.crt'), 'utf8');
  const der = (pem: string) => pem.replace(/-----[^-]+-----|\s/g, '');
  assert.equal(der(cm.data['requestheader-client-ca-file']), der(frontProxyCA));
  assert.equal(der(cm.data['client-ca-file']), der(readFileSync(join(cluster.dataDir, 'pki', 'ca.crt'), 'utf8')));
});

test('the APIService becomes Available and kubectl reads through the proxy as the front proxy', async () => {
  await eventually('Available', async () => {
    const out = await kubectlOk(cluster, ['get', 'apiservices', 'v1alpha1.wardle.example.com']);
    return /v1alpha1\.wardle\.example\.com\s+wardle\/wardle-api\s+True\s/.test(out) ? out : undefined;
  });
  assert.equal((await availability()).trim().split(/\s+/).slice(0, 2).join(' '), 'True Passed');
  const check = seen.find((s) => s.user === 'system:kube-aggregator');
  assert.deepEqual(check && { path: check.path, groups: check.groups, cn: check.cn }, { path: GV, groups: ['system:masters'], cn: 'front-proxy-client' });

  seen.length = 0;
  const out = JSON.parse(await kubectlOk(cluster, ['get', '--raw', `${GV}/namespaces/default/flunders?limit=500`]));
  assert.deepEqual(out, flunders);
  const s = seen.find((x) => x.path.startsWith(`${GV}/namespaces/default/flunders`))!;
  assert.equal(s.path, `${GV}/namespaces/default/flunders?limit=500`);
  assert.equal(s.user, 'kubernetes-admin');
  assert.deepEqual(s.groups, ['system:masters', 'system:authenticated']);
  assert.equal(s.cn, 'front-proxy-client');
  assert.equal(s.authorization, undefined);

  // A request body goes through as the client sent it.
  const created = await rawJSON(cluster, 'POST', `${GV}/namespaces/default/flunders`, { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', spec: { x: 1 } });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body, { apiVersion: 'wardle.example.com/v1alpha1', kind: 'Flunder', spec: { x: 1 }, metadata: { name: 'two', namespace: 'default' } });

  // Discovery lists the group version (fetched through the same proxy), so kubectl finds the resource.
  const listed = await eventually('flunders listed', async () => {
    const o = await kubectlOk(cluster, ['get', 'flunders', '-n', 'default', '-o', 'name']);
    return o.trim() ? o : undefined;
  });
  assert.equal(listed.trim(), 'flunder.wardle.example.com/one');
});

test('an upgrade request reaches the extension server and is joined to it', async () => {
  const c = credentials(cluster);
  const socket = tls.connect({ host: '127.0.0.1', port: cluster.port, ca: c.ca, cert: c.cert, key: c.key, ALPNProtocols: ['http/1.1'] });
  await new Promise<void>((r) => socket.once('secureConnect', () => r()));
  socket.write(`POST ${GV}/namespaces/default/flunders/one/portforward HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n`);
  const head = await new Promise<string>((resolve) => {
    let got = '';
    const onData = (d: Buffer) => { got += d.toString(); if (got.includes('\r\n\r\n')) { socket.off('data', onData); resolve(got); } };
    socket.on('data', onData);
  });
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  const echoed = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString())));
  socket.write('ping');
  assert.equal(await echoed, 'echo:ping');
  socket.destroy();
  assert.equal(upgradeUser, 'kubernetes-admin');
});

test('a backend that answers 404 to discovery fails the check with upstream\'s message', async () => {
  discoveryStatus = 404;
  // A change of the Endpoints makes the controller check again.
  await kubectlOk(cluster, ['label', 'endpoints', '-n', 'wardle', 'wardle-api', 'touched=1']);
  const ip = await clusterIP();
  const url = `https://${ip}:443${GV}`;
  const out = await eventually('FailedDiscoveryCheck', async () => {
    const o = await availability();
    return o.includes('FailedDiscoveryCheck') ? o : undefined;
  });
  assert.equal(out.trim(), `False   FailedDiscoveryCheck   failing or missing response from ${url}: bad status from ${url}: 404`);
  const r = await raw(cluster, 'GET', `${GV}/namespaces/default/flunders`);
  assert.equal(r.status, 503);
  assert.equal(r.body, 'service unavailable\n');
  discoveryStatus = 200;
  // A failed check is retried with back-off.
  await eventually('Passed again', async () => ((await availability()).includes('Passed') ? true : undefined));
});

test('without its Service the APIService is False (ServiceNotFound) and the proxy answers 503 "service unavailable"', async () => {
  await kubectlOk(cluster, ['delete', 'service', '-n', 'wardle', 'wardle-api']);
  await eventually('ServiceNotFound', async () => {
    const out = await kubectlOk(cluster, ['get', 'apiservices', 'v1alpha1.wardle.example.com']);
    return /wardle\/wardle-api\s+False \(ServiceNotFound\)/.test(out) ? out : undefined;
  });
  assert.equal((await availability()).trim(), 'False   ServiceNotFound   service/wardle-api in "wardle" is not present');
  const r = await raw(cluster, 'GET', `${GV}/namespaces/default/flunders`);
  assert.equal(r.status, 503);
  assert.equal(r.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(r.body, 'service unavailable\n');
});
