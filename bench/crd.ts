/**
 * Custom resource figures (`winkube up --api-only`): how long a new CRD takes
 * to show in discovery, and a LIST of 10,000 custom resources against a LIST
 * of 10,000 ConfigMaps with the same data; and of 10,000 custom resources
 * stored before their schema got a default (the server decodes and defaults
 * each one the first time it lists it, then serves that form while the object
 * is unchanged).
 * Run: npm run bench:crd (after npm install).
 */
import { Connection, runLoad } from './load.js';
import { startServer } from './server.js';

const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);
const CONCURRENCY = 32;
const LISTS = 7;
const GROUP = 'bench.winkube.io';

/** About 1 KB of data, as a small ConfigMap has. */
const DATA = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`key-${i}`, `value-${i}-`.padEnd(56, 'x')]));

/** A CRD whose objects hold `data` as a ConfigMap does; with a schema default, read objects are defaulted (decoded, not served as stored). */
const crd = (plural: string, kind: string, withDefault: boolean) => ({
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}` },
  spec: {
    group: GROUP, scope: 'Namespaced', names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
    versions: [{
      name: 'v1', served: true, storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: {
        data: { type: 'object', additionalProperties: { type: 'string' } },
        ...(withDefault ? { mode: { type: 'string', default: 'auto' } } : {}),
      } } },
    }],
  },
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  const server = await startServer({ upArgs: ['--api-only'] });
  const conn = await Connection.open(server.target);
  try {
    while ((await conn.request('GET', '/readyz')).status !== 200) await new Promise((r) => setTimeout(r, 5));
    await conn.request('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'bench' } }));

    // Discovery: from the CRD's create to its resource in the group version's discovery document.
    const created = performance.now();
    const r = await conn.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd('widgets', 'Widget', false)));
    if (r.status !== 201) throw new Error(`create CRD: ${r.status} ${r.body.slice(0, 300)}`);
    for (;;) {
      const d = await conn.request('GET', `/apis/${GROUP}/v1`);
      if (d.status === 200 && (JSON.parse(d.body) as { resources: { name: string }[] }).resources.some((x) => x.name === 'widgets')) break;
      await new Promise((res) => setTimeout(res, 2));
    }
    console.log(`CRD create to its resource in discovery: ${ms(performance.now() - created)} (target <= 1000 ms)`);

    await conn.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', JSON.stringify(crd('gadgets', 'Gadget', false)));
    while ((await conn.request('GET', `/apis/${GROUP}/v1/namespaces/bench/gadgets`)).status !== 200) await new Promise((res) => setTimeout(res, 5));

    const configMap = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `object-${i}` }, data: DATA });
    const widget = (i: number) => JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: `object-${i}` }, data: DATA });
    await runLoad(server.target, CONCURRENCY, OBJECTS, (i) => ({ method: 'POST', path: '/api/v1/namespaces/bench/configmaps', body: configMap(i), expect: 201 }));
    await runLoad(server.target, CONCURRENCY, OBJECTS, (i) => ({ method: 'POST', path: `/apis/${GROUP}/v1/namespaces/bench/widgets`, body: widget(i), expect: 201 }));
    const gadget = (i: number) => JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `object-${i}` }, data: DATA });
    await runLoad(server.target, CONCURRENCY, OBJECTS, (i) => ({ method: 'POST', path: `/apis/${GROUP}/v1/namespaces/bench/gadgets`, body: gadget(i), expect: 201 }));
    // The default comes after the objects: every one of them is defaulted as it is read (the worst case).
    const withDefault = { spec: { versions: crd('gadgets', 'Gadget', true).spec.versions } };
    const p = await conn.request('PATCH', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${GROUP}`, JSON.stringify(withDefault), 'application/merge-patch+json');
    if (p.status !== 200) throw new Error(`patch CRD: ${p.status} ${p.body.slice(0, 300)}`);
    while (!(await conn.request('GET', `/apis/${GROUP}/v1/namespaces/bench/gadgets/object-0`)).body.includes('"mode":"auto"')) {
      await new Promise((res) => setTimeout(res, 5));
    }

    // Alternated, so that a drift of the machine's speed falls on both.
    const times = { configmaps: [] as number[], widgets: [] as number[], gadgets: [] as number[] };
    const bytes = { configmaps: 0, widgets: 0, gadgets: 0 };
    const paths = {
      configmaps: '/api/v1/namespaces/bench/configmaps', widgets: `/apis/${GROUP}/v1/namespaces/bench/widgets`,
      gadgets: `/apis/${GROUP}/v1/namespaces/bench/gadgets`,
    };
    for (let i = 0; i < LISTS; i++) {
      for (const kind of ['configmaps', 'widgets', 'gadgets'] as const) {
        const s = performance.now();
        const l = await conn.request('GET', paths[kind]);
        times[kind].push(performance.now() - s);
        bytes[kind] = l.body.length;
        // (The namespace's kube-root-ca.crt ConfigMap is listed too.)
        if ((JSON.parse(l.body) as { items: unknown[] }).items.length < OBJECTS) throw new Error(`short list of ${kind}`);
      }
    }
    const cm = median(times.configmaps);
    const cr = median(times.widgets);
    console.log(`LIST ${OBJECTS} ConfigMaps (JSON, ${(bytes.configmaps / 1e6).toFixed(1)} MB): median ${ms(cm)}`);
    console.log(`LIST ${OBJECTS} custom resources (JSON, ${(bytes.widgets / 1e6).toFixed(1)} MB): median ${ms(cr)}; ` +
      `${(cr / cm).toFixed(2)}× the ConfigMaps (target <= 1.5×)`);
    const cd = median(times.gadgets);
    console.log(`LIST ${OBJECTS} custom resources stored before a schema default was added, defaulted as read (JSON, ${(bytes.gadgets / 1e6).toFixed(1)} MB): ` +
      `median ${ms(cd)}; ${(cd / cm).toFixed(2)}× the ConfigMaps (target <= 1.5×); ` +
      `the first list, which defaults each object, ${ms(times.gadgets[0]!)} (${(times.gadgets[0]! / cm).toFixed(2)}×)`);
  } finally {
    conn.close();
    await server.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
