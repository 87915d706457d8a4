/**
 * `winkube up --gmsa` installs sig-windows' GMSACredentialSpec CRD, as
 * AKS's --enable-windows-gmsa does; without the flag the kind is not served,
 * as on a kubeadm or EKS cluster where nobody installed it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { kubectl, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { GMSA_CREDSPEC } from '../helpers/gmsa.js';

let withGmsa: TestCluster;
let without: TestCluster;
before(async () => {
  [withGmsa, without] = await Promise.all([startCluster(undefined, ['--api-only', '--gmsa']), startCluster(undefined, ['--api-only'])]);
});
after(async () => {
  for (const c of [withGmsa, without]) { await c.stop(); removeDir(c.dataDir); }
});

const ok = (args: string[], input?: string) => kubectlOk(withGmsa, args, input);


test('with --gmsa the CRD is Established and its kind served; credential specs are created and read in both versions', async () => {
  await ok(['wait', '--for=condition=Established', 'crd/gmsacredentialspecs.windows.k8s.io', '--timeout=60s']);
  assert.equal(await ok(['api-resources', '--api-group=windows.k8s.io', '--no-headers']),
    'gmsacredentialspecs         windows.k8s.io/v1   false   GMSACredentialSpec\n');
  assert.equal(await ok(['apply', '-f', '-'], GMSA_CREDSPEC), 'gmsacredentialspec.windows.k8s.io/gmsa-webapp1 created\n');
  assert.equal(await ok(['get', 'gmsacredentialspec', 'gmsa-webapp1', '-o', 'jsonpath={.credspec.DomainJoinConfig.MachineAccountName}']), 'WebApp1');
  const old = await kubectl(withGmsa, ['get', 'gmsacredentialspecs.v1alpha1.windows.k8s.io', 'gmsa-webapp1', '-o', 'name']);
  assert.equal(old.code, 0, old.stderr);
  assert.equal(old.stdout, 'gmsacredentialspec.windows.k8s.io/gmsa-webapp1\n');
  assert.equal(old.stderr, 'Warning: windows.k8s.io/v1alpha1 GMSACredentialSpec is deprecated; use windows.k8s.io/v1 GMSACredentialSpec\n');
});

const CHART_CRD = new URL('../../../../shared/corpus/crds/gmsa__crds.yaml', import.meta.url);

test("the windows-gmsa chart's own CRD applies over it", { skip: !existsSync(CHART_CRD) }, async () => {
  const r = await kubectl(withGmsa, ['apply', '-f', CHART_CRD.pathname]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'customresourcedefinition.apiextensions.k8s.io/gmsacredentialspecs.windows.k8s.io configured\n');
});

test('without --gmsa the kind is not served', async () => {
  const r = await kubectl(without, ['get', 'gmsacredentialspecs']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'error: the server doesn\'t have a resource type "gmsacredentialspecs"\n');
  const applied = await kubectl(without, ['apply', '-f', '-'], { input: GMSA_CREDSPEC });
  assert.equal(applied.code, 1);
  assert.equal(applied.stderr, 'error: resource mapping not found for name: "gmsa-webapp1" namespace: "" from "STDIN": no matches for kind "GMSACredentialSpec" in version "windows.k8s.io/v1"\n' +
    'ensure CRDs are installed first\n');
});
