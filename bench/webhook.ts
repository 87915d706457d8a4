/**
 * What one validating admission webhook adds to a write (`winkube up --api-only`): ConfigMap
 * creates, one at a time over one connection, without any webhook and with one validating webhook
 * on a loopback `url` target (a node:https server in this process that allows everything). The
 * two are measured in alternating rounds so that a drift of the machine's speed falls on both.
 * Target: the webhook adds at most 2 ms p50.
 * Run: npm run bench:webhook (after npm install).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issue } from '../src/pki/issue.js';
import { Connection } from './load.js';
import { startServer } from './server.js';

const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const ca = await createCA();
  const cert = await issue(ca, 'webhook', 'server', { dns: [], ip: ['127.0.0.1'] });
  let calls = 0;
  const hook = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      calls++;
      const uid = (JSON.parse(body) as { request: { uid: string } }).request.uid;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const hookPort = (hook.address() as AddressInfo).port;

  const server = await startServer({ upArgs: ['--api-only'] });
  const conn = await Connection.open(server.target);
  try {
    while ((await conn.request('GET', '/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 5));
    await conn.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bench' } }));
    const configuration = JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'bench' },
      webhooks: [{
        name: 'allow.bench.winkube.io', sideEffects: 'None', admissionReviewVersions: ['v1'],
        clientConfig: { url: `https://127.0.0.1:${hookPort}/validate`, caBundle: Buffer.from(ca.cert).toString('base64') },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      }],
    });
    const configurations = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
    let n = 0;
    const creates = async (count: number, into: number[]) => {
      for (let i = 0; i < count; i++) {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${n++}` }, data: { key: 'value' } });
        const t = performance.now();
        const r = await conn.request('POST', '/api/v1/namespaces/bench/configmaps', body);
        into.push(performance.now() - t);
        if (r.status !== 201) throw new Error(`create: ${r.status} ${r.body.slice(0, 300)}`);
      }
    };
    // Warm-up: connections, JIT, the lister of configurations.
    await creates(100, []);
    const without: number[] = [];
    const withHook: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await creates(PER_ROUND, without);
      const c = await conn.request('POST', configurations, configuration);
      if (c.status !== 201) throw new Error(`create configuration: ${c.status} ${c.body.slice(0, 300)}`);
      await creates(10, []);
      await creates(PER_ROUND, withHook);
      await conn.request('DELETE', `${configurations}/bench`);
    }
    const p50 = [percentile(without, 0.5), percentile(withHook, 0.5)] as const;
    const p90 = [percentile(without, 0.9), percentile(withHook, 0.9)] as const;
    console.log(`ConfigMap create, ${without.length} each, one at a time:`);
    console.log(`  no webhook:                 p50 ${ms(p50[0])}  p90 ${ms(p90[0])}`);
    console.log(`  one validating webhook:     p50 ${ms(p50[1])}  p90 ${ms(p90[1])}  (${calls} webhook calls)`);
    console.log(`  added by the webhook:       p50 ${ms(p50[1] - p50[0])}  p90 ${ms(p90[1] - p90[0])}  (target p50 <= 2 ms)`);
  } finally {
    conn.close();
    await server.stop();
    hook.closeAllConnections();
    hook.close();
  }
}

void main().catch((e) => { console.error(e); process.exit(1); });
