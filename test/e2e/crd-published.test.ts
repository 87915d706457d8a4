/**
 * The published CRDs of the tools users run (cert-manager, the Prometheus operator, the Gateway API's
 * standard channel, sig-windows' GMSA), taken unchanged from ../shared/corpus, used as a user uses them:
 * `kubectl apply` and `kubectl apply --server-side` of the CRDs, then instances created, listed as
 * Tables, explained, patched, refused when bad (schema and CEL rule messages) and deleted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { kubectl, kubectlFails, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { GMSA_CREDSPEC } from '../helpers/gmsa.js';
import { CORPUS_DIR } from '../helpers/golden.js';

const CRDS = join(CORPUS_DIR, 'crds');
const PROJECTS = ['certmanager__', 'promop__', 'gwapi__', 'gmsa__'];
/** Files of CRDs only (the Gateway API's channel also ships a ValidatingAdmissionPolicy). */
const crdFiles = readdirSync(CRDS).filter((f) => PROJECTS.some((p) => f.startsWith(p)) && !f.includes('_vap_')).sort();
/**
 * The Prometheus operator's CRDs whose kubectl.kubernetes.io/last-applied-configuration would exceed
 * the 256 KiB annotation limit: client-side apply fails on them on a real cluster too, which is why
 * the project documents `--server-side`.
 */
const TOO_LARGE_FOR_CLIENT_SIDE = new Set(['alertmanagerconfigs', 'alertmanagers', 'prometheuses', 'scrapeconfigs']);

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
const fails = (args: string[], input?: string) => kubectlFails(cluster, args, input);

test('kubectl apply creates every CRD but the four too large for the last-applied annotation; apply --server-side then applies all of them', async () => {
  for (const f of crdFiles) {
    const plural = /^[a-z]+__[a-z.-]+?_([a-z]+)\.yaml$/.exec(f)?.[1] ?? 'gmsacredentialspecs';
    const r = await kubectl(cluster, ['apply', '-f', join(CRDS, f)]);
    if (TOO_LARGE_FOR_CLIENT_SIDE.has(plural)) {
      assert.equal(r.code, 1, f);
      assert.match(r.stderr, new RegExp(`^The CustomResourceDefinition "${plural}\\.monitoring\\.coreos\\.com" is invalid: metadata\\.annotations: Too long: may not be more than 262144 bytes\\n$`), f);
    } else {
      assert.equal(r.code, 0, `${f}: ${r.stderr}`);
      assert.match(r.stdout, /^customresourcedefinition\.apiextensions\.k8s\.io\/\S+ created\n$/, f);
    }
  }
  for (const f of crdFiles) {
    const out = await ok(['apply', '--server-side', '-f', join(CRDS, f)]);
    assert.match(out, /^customresourcedefinition\.apiextensions\.k8s\.io\/\S+ serverside-applied\n$/, f);
  }
  // Each CRD applied client-side first is still the same CRD: server-side apply took its fields over.
  const names = (await ok(['get', 'crd', '-o', 'name'])).trim().split('\n');
  assert.equal(names.length, crdFiles.length);
  await ok(['wait', '--for=condition=Established', '--timeout=60s', ...names]);
});

const INSTANCES = `apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: selfsigned}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: selfsigned, kind: Issuer}
---
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: main}
spec:
  replicas: 2
  serviceMonitorSelector: {matchLabels: {team: web}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http, interval: 30s}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
${GMSA_CREDSPEC}`;

test('instances of each kind: created, listed with the CRDs\' printer columns, explained, patched and deleted', async () => {
  assert.equal(await ok(['apply', '-f', '-'], INSTANCES), [
    'issuer.cert-manager.io/selfsigned created', 'certificate.cert-manager.io/web created',
    'prometheus.monitoring.coreos.com/main created', 'servicemonitor.monitoring.coreos.com/web created',
    'gateway.gateway.networking.k8s.io/gw created', 'gmsacredentialspec.windows.k8s.io/gmsa-webapp1 created', '',
  ].join('\n'));
  // Applied again: unchanged, but for the Gateway. Custom resources get a JSON merge patch, which
  // carries a list whole, and the stored listeners hold their schema default (allowedRoutes), so
  // kubectl's three-way patch is not empty: a real cluster says "configured" there too.
  assert.equal(await ok(['apply', '-f', '-'], INSTANCES), [
    'issuer.cert-manager.io/selfsigned unchanged', 'certificate.cert-manager.io/web unchanged',
    'prometheus.monitoring.coreos.com/main unchanged', 'servicemonitor.monitoring.coreos.com/web unchanged',
    'gateway.gateway.networking.k8s.io/gw configured', 'gmsacredentialspec.windows.k8s.io/gmsa-webapp1 unchanged', '',
  ].join('\n'));

  const tables: [string, RegExp][] = [
    ['issuers', /^NAME\s+READY\s+AGE\nselfsigned\s+\d+s\n$/],
    ['certificates', /^NAME\s+READY\s+SECRET\s+AGE\nweb\s+web-tls\s+\d+s\n$/],
    ['prometheuses', /^NAME\s+VERSION\s+DESIRED\s+READY\s+RECONCILED\s+AVAILABLE\s+AGE\nmain\s+2\s+\d+s\n$/],
    ['servicemonitors', /^NAME\s+AGE\nweb\s+\d+s\n$/],
    // The Gateway's status defaults (Programmed: Unknown) are in its schema.
    ['gateways', /^NAME\s+CLASS\s+ADDRESS\s+PROGRAMMED\s+AGE\ngw\s+example\s+Unknown\s+\d+s\n$/],
    ['gmsacredentialspecs', /^NAME\s+AGE\ngmsa-webapp1\s+\d+s\n$/],
  ];
  for (const [resource, want] of tables) assert.match(await ok(['get', resource]), want, resource);
  assert.match(await ok(['get', 'certificate', 'web', '-o', 'wide']), /^NAME\s+READY\s+SECRET\s+ISSUER\s+STATUS\s+EXPIRATION\s+AGE\nweb\s+web-tls\s+selfsigned\s+\d+s\n$/);

  const explained: [string, string][] = [
    ['certificate.spec.secretName', 'FIELD: secretName <string>'],
    ['prometheus.spec.replicas', 'FIELD: replicas <integer>'],
    ['servicemonitor.spec.endpoints', 'FIELD: endpoints <[]Object>'],
    ['gateway.spec.listeners.port', 'FIELD: port <integer>'],
    ['gmsacredentialspec.credspec', 'FIELD: credspec <Object>'],
  ];
  for (const [path, field] of explained) {
    const out = await ok(['explain', path]);
    assert.ok(out.split('\n').includes(field), `${path}:\n${out}`);
  }

  assert.equal(await ok(['patch', 'certificate', 'web', '--type', 'merge', '-p', '{"spec":{"dnsNames":["web.example.com","www.example.com"]}}']),
    'certificate.cert-manager.io/web patched\n');
  assert.equal(await ok(['get', 'certificate', 'web', '-o', 'jsonpath={.spec.dnsNames}']), '["web.example.com","www.example.com"]');
  assert.equal(await ok(['patch', 'gateway', 'gw', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/listeners/0/port","value":8080}]']),
    'gateway.gateway.networking.k8s.io/gw patched\n');
  // Custom resources have no strategic merge patch (no Go struct to carry patch strategies).
  assert.equal(await fails(['patch', 'certificate', 'web', '-p', '{"spec":{"dnsNames":["x"]}}']),
    'error: application/strategic-merge-patch+json is not supported by cert-manager.io/v1, Kind=Certificate: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n');
  // Prometheus' scale subresource is its shards.
  assert.equal(await ok(['scale', 'prometheus', 'main', '--replicas=3']), 'prometheus.monitoring.coreos.com/main scaled\n');
  assert.equal(await ok(['get', 'prometheus', 'main', '-o', 'jsonpath={.spec.shards} {.spec.replicas}']), '3 2');

  assert.equal(await ok(['delete', '-f', '-'], INSTANCES), [
    'issuer.cert-manager.io "selfsigned" deleted', 'certificate.cert-manager.io "web" deleted',
    'prometheus.monitoring.coreos.com "main" deleted', 'servicemonitor.monitoring.coreos.com "web" deleted',
    'gateway.gateway.networking.k8s.io "gw" deleted', 'gmsacredentialspec.windows.k8s.io "gmsa-webapp1" deleted', '',
  ].join('\n'));
  assert.equal(await fails(['get', 'gateway', 'gw']), 'Error from server (NotFound): gateways.gateway.networking.k8s.io "gw" not found\n');
});

test('bad instances are refused with upstream\'s schema errors and the CRDs\' own CEL rule messages', async () => {
  const cases: [string, string][] = [
    [`apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: bad}
spec:
  updateStrategy: {type: OnDelete, rollingUpdate: {maxUnavailable: 1}}
`, 'The Prometheus "bad" is invalid: spec.updateStrategy: Invalid value: "object": rollingUpdate requires type to be RollingUpdate\n'],
    // A schema error stops the rules, with upstream's note in their place.
    [`apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata: {name: bad}
spec:
  replicas: two
  updateStrategy: {type: OnDelete, rollingUpdate: {maxUnavailable: 1}}
`, 'The Prometheus "bad" is invalid: \n'
      + '* spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"\n'
      + '* <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation\n'],
    [`apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: bad}
spec:
  venafi: {zone: z, tpp: {url: "https://x", credentialsRef: {name: c}}, cloud: {apiTokenSecretRef: {name: s}}}
`, 'The Issuer "bad" is invalid: spec.venafi: Invalid value: "object": exactly one of tpp, cloud, or ngts must be configured\n'],
    [`apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: bad}
spec:
  dnsNames: [web.example.com]
  issuerRef: {name: selfsigned}
  privateKey: {algorithm: DSA}
`, 'The Certificate "bad" is invalid: \n'
      + '* spec.secretName: Required value\n'
      + '* spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"\n'],
    [`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: bad}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 0}]
`, 'The Gateway "bad" is invalid: spec.listeners[0].port: Invalid value: 0: spec.listeners[0].port in body should be greater than or equal to 1\n'],
    [`apiVersion: windows.k8s.io/v1
kind: GMSACredentialSpec
metadata: {name: bad}
credspec: text
`, 'The GMSACredentialSpec "bad" is invalid: credspec: Invalid value: "string": credspec in body must be of type object: "string"\n'],
  ];
  for (const [manifest, want] of cases) {
    assert.equal(await fails(['create', '-f', '-'], manifest), want);
  }
  assert.equal(await ok(['get', 'prometheuses,issuers,certificates,gateways,gmsacredentialspecs', '-o', 'name']), '');
});

test('the Gateway API\'s safe-upgrades ValidatingAdmissionPolicy refuses its CRDs of a development bundle (v0.0.0-dev) with its own message', async () => {
  assert.equal(await ok(['apply', '-f', join(CRDS, 'gwapi__gateway.networking.k8s.io_vap_safeupgrades.yaml')]), [
    'validatingadmissionpolicy.admissionregistration.k8s.io/safe-upgrades.gateway.networking.k8s.io created',
    'validatingadmissionpolicybinding.admissionregistration.k8s.io/safe-upgrades.gateway.networking.k8s.io created', '',
  ].join('\n'));
  // Its rule uses the standard library's global matches(): 'v0.0.0-dev' matches 'v0'.
  assert.equal(await fails(['apply', '--server-side', '-f', join(CRDS, 'gwapi__gateway.networking.k8s.io_gateways.yaml')]),
    'The customresourcedefinitions "gateways.gateway.networking.k8s.io" is invalid: : ValidatingAdmissionPolicy \'safe-upgrades.gateway.networking.k8s.io\' '
    + 'with binding \'safe-upgrades.gateway.networking.k8s.io\' denied request: Installing CRDs with version before v1.5.0 is prohibited by default. '
    + 'Uninstall ValidatingAdmissionPolicy safe-upgrades.gateway.networking.k8s.io to install older versions.\n');
});
