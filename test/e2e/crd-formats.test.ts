/**
 * OpenAPI string formats on custom resources through the API with real kubectl: date-time, ipv4 and
 * uri are checked with kube-openapi's message; formats apiextensions does not keep are not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: events.formats.example.com
spec:
  group: formats.example.com
  scope: Namespaced
  names: {plural: events, singular: event, kind: Event, listKind: EventList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              when: {type: string, format: date-time}
              ip: {type: string, format: ipv4}
              link: {type: string, format: uri}
              size: {type: string, format: int32}
              other: {type: string, format: foo}
`;

const event = (name: string, spec: string) => `apiVersion: formats.example.com/v1
kind: Event
metadata:
  name: ${name}
  namespace: default
spec:
${spec}`;

test('date-time, ipv4 and uri are checked; int32 and unknown formats are not', async () => {
  await kubectlOk(cluster, ['apply', '-f', '-'], CRD);
  await eventually('CRD Established', async () => {
    const r = await rawJSON(cluster, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/events.formats.example.com');
    return r.body?.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
  const bad = await kubectl(cluster, ['create', '-f', '-'], { input: event('bad', '  when: yesterday\n  ip: 300.1.1.1\n  link: example.com\n') });
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stderr.trim(), 'The Event "bad" is invalid: \n'
    + '* spec.ip: Invalid value: "300.1.1.1": spec.ip in body must be of type ipv4: "300.1.1.1"\n'
    + '* spec.link: Invalid value: "example.com": spec.link in body must be of type uri: "example.com"\n'
    + '* spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"');
  await kubectlOk(cluster, ['create', '-f', '-'], event('good', '  when: "2024-01-02T03:04:05Z"\n  ip: 10.0.0.1\n  link: https://example.com/x\n  size: not-a-number\n  other: anything\n'));
});
