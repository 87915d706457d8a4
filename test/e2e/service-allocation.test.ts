/**
 * Cluster IP and node port allocation under concurrent creates: as with
 * upstream's allocators, a requested value goes to exactly one Service, the
 * others are refused with the allocator's message, and a create that fails
 * after allocating gives back what it took.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { credentials, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const SERVICES = '/api/v1/namespaces/default/services';
const PARALLEL = 20;
// Explicit node ports and cluster IPs are taken from the static bands (node ports 30000-30085, IPs up to
// 10.96.1.0), which dynamic allocation leaves alone: the automatic creates below cannot take them first.

interface ServiceBody {
  apiVersion: 'v1';
  kind: 'Service';
  metadata: { name: string };
  spec: { type?: string; clusterIP?: string; selector: Record<string, string>; ports: { port: number; nodePort?: number; name?: string }[] };
}

/** What the tests read of an answer: a Service or a Status. */
interface Answer {
  status: number;
  body: Record<string, unknown> & { spec?: ServiceBody['spec']; details?: { causes: { field: string }[] }; items?: ServiceBody[] };
}

const nodePortService = (name: string, nodePort: number, clusterIP?: string): ServiceBody => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name },
  spec: { type: 'NodePort', ...(clusterIP ? { clusterIP } : {}), selector: { app: name }, ports: [{ port: 80, nodePort }] },
});

const clusterIPService = (name: string, clusterIP: string): ServiceBody => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name },
  spec: { clusterIP, selector: { app: name }, ports: [{ port: 80 }] },
});

function invalid(name: string, field: string, message: string) {
  return {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `Service "${name}" is invalid: ${field}: ${message}`,
    reason: 'Invalid',
    details: { name, kind: 'Service', causes: [{ reason: 'FieldValueInvalid', message, field }] },
    code: 422,
  };
}

/** Exactly one request wins (`ok`); every other gets upstream's 422 for `field`. Returns the winner's name, as a list. */
function oneWins(answers: { status: number; body: unknown }[], names: string[], ok: number, field: string, message: string): string[] {
  const won = answers.flatMap((a, i) => (a.status === ok ? [names[i] ?? ''] : []));
  assert.equal(won.length, 1, `won: ${won.join(', ')}`);
  answers.forEach((a, i) => {
    if (names[i] === won[0]) return;
    assert.deepEqual({ status: a.status, body: a.body }, { status: 422, body: invalid(names[i] ?? '', field, message) });
  });
  return won;
}

/**
 * Sends the requests so that their bodies reach the server together: every
 * request's headers go first, on its own connection, and once all are out
 * the bodies follow in one go. The server then reads all the bodies in the
 * same turn, the closest clients can come to simultaneous writes.
 */
function sendTogether(method: string, paths: string[], bodies: object[], contentType = 'application/json') {
  const c = credentials(cluster);
  const agent = new Agent({ ca: c.ca, cert: c.cert, key: c.key, maxSockets: bodies.length });
  const texts = bodies.map((b) => JSON.stringify(b));
  const requests = texts.map((text, i) => {
    const req = request({
      host: '127.0.0.1', port: cluster.port, method, path: paths[i], agent,
      headers: { Accept: 'application/json', 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(text) },
    });
    const answer = new Promise<Answer>((resolve, reject) => {
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    return { req, answer };
  });
  // Every connection is up and its headers sent before any body goes.
  return new Promise<Answer[]>((resolve, reject) => {
    setTimeout(() => {
      requests.forEach(({ req }, i) => req.end(texts[i]));
      Promise.all(requests.map((r) => r.answer)).then(resolve, reject).finally(() => agent.destroy());
    }, 500);
  });
}

const createAll = (bodies: object[]) => sendTogether('POST', bodies.map(() => SERVICES), bodies);

test(`${PARALLEL} concurrent creates asking for the same nodePort: one gets it, the others are refused`, async () => {
  const names = Array.from({ length: PARALLEL }, (_, i) => `np-race-${i}`);
  const answers = await createAll(names.map((n) => nodePortService(n, 30080)));
  const won = oneWins(answers, names, 201, 'spec.ports[0].nodePort',
    'Invalid value: 30080: provided port is already allocated');
  const list = (await rawJSON(cluster, 'GET', SERVICES)).body as { items: ServiceBody[] };
  const holders = list.items.filter((s) => s.spec.ports.some((p) => p.nodePort === 30080)).map((s) => s.metadata.name);
  assert.deepEqual(holders, won);
});

test(`${PARALLEL} concurrent creates asking for the same clusterIP: one gets it, the others are refused`, async () => {
  const names = Array.from({ length: PARALLEL }, (_, i) => `ip-race-${i}`);
  const answers = await createAll(names.map((n) => clusterIPService(n, '10.96.0.50')));
  oneWins(answers, names, 201, 'spec.clusterIPs',
    'Invalid value: []string{"10.96.0.50"}: failed to allocate IP 10.96.0.50: provided IP is already allocated');
});

test('concurrent creates without explicit values all get distinct node ports and cluster IPs', async () => {
  const names = Array.from({ length: PARALLEL }, (_, i) => `np-auto-${i}`);
  const answers = await createAll(names.map((n) => ({
    apiVersion: 'v1', kind: 'Service', metadata: { name: n },
    spec: { type: 'NodePort', selector: { app: n }, ports: [{ port: 80 }] },
  })));
  assert.deepEqual(answers.map((a) => a.status), names.map(() => 201));
  assert.equal(new Set(answers.map((a) => a.body.spec?.ports[0]?.nodePort)).size, PARALLEL);
  assert.equal(new Set(answers.map((a) => a.body.spec?.clusterIP)).size, PARALLEL);
});

test('a create that fails validation after allocating releases its node port and cluster IP', async () => {
  // The allocation succeeds; validation then refuses the port name.
  const bad = nodePortService('np-released', 30050, '10.96.0.60');
  const [port] = bad.spec.ports;
  assert.ok(port);
  port.name = 'Not_A_Port_Name';
  const refused = await rawJSON(cluster, 'POST', SERVICES, bad);
  assert.equal(refused.status, 422);
  assert.equal(refused.body.details.causes[0].field, 'spec.ports[0].name');
  const good = nodePortService('np-released', 30050, '10.96.0.60');
  const created = await rawJSON(cluster, 'POST', SERVICES, good);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual([created.body.spec.clusterIP, created.body.spec.ports[0].nodePort], ['10.96.0.60', 30050]);
});

test('a dry-run create holds nothing: the same values can be created for real afterwards', async () => {
  const body = nodePortService('np-dry', 30051, '10.96.0.61');
  const dry = await rawJSON(cluster, 'POST', `${SERVICES}?dryRun=All`, body);
  assert.equal(dry.status, 201, JSON.stringify(dry.body));
  const real = await rawJSON(cluster, 'POST', SERVICES, body);
  assert.equal(real.status, 201, JSON.stringify(real.body));
});

test('concurrent updates asking for the same new nodePort: one gets it', async () => {
  const names = Array.from({ length: PARALLEL }, (_, i) => `np-upd-${i}`);
  for (const [i, n] of names.entries()) {
    assert.equal((await rawJSON(cluster, 'POST', SERVICES, nodePortService(n, 30020 + i))).status, 201);
  }
  const answers = await sendTogether('PATCH', names.map((n) => `${SERVICES}/${n}`),
    names.map(() => ({ spec: { ports: [{ port: 80, nodePort: 30060 }] } })), 'application/merge-patch+json');
  oneWins(answers, names, 200, 'spec.ports[0].nodePort',
    'Invalid value: 30060: provided port is already allocated');
});
