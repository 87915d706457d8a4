/**
 * The Kubernetes documentation's "Configure GMSA for Windows Pods and containers", end to end with
 * kubectl on `winkube up --gmsa`: the webhook's objects as its deploy script creates them, a
 * credential spec, a ClusterRole granting `use` on it and a RoleBinding for the default service
 * account, then the task's Deployment: its pod gets the spec's contents from the mutating webhook,
 * runs on a Windows node, and its runtime gets the credential spec; the same pod under a service
 * account without the binding is refused with the webhook's message.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually, kubectlFails, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { GMSA_CREDSPEC } from '../helpers/gmsa.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--gmsa']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
const fails = (args: string[], input?: string) => kubectlFails(cluster, args, input);

// The task's manifests: the credential spec, a ClusterRole and a RoleBinding.
const CREDSPEC_AND_RBAC = `${GMSA_CREDSPEC}---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: webapp1-role
rules:
- apiGroups: ["windows.k8s.io"]
  resources: ["gmsacredentialspecs"]
  verbs: ["use"]
  resourceNames: ["gmsa-webapp1"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: allow-default-svc-account-read-on-gmsa-WebApp1
  namespace: default
subjects:
- kind: ServiceAccount
  name: default
  namespace: default
roleRef:
  kind: ClusterRole
  name: webapp1-role
  apiGroup: rbac.authorization.k8s.io
`;

/**
 * The task's Deployment. Its image is built for Windows Server 2019, so (with process isolation)
 * it runs only on a 17763 node: the default cluster has 2022 nodes too, hence the build selector.
 */
const deployment = (name: string, serviceAccount?: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    run: ${name}
  name: ${name}
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels:
      run: ${name}
  template:
    metadata:
      labels:
        run: ${name}
    spec:${serviceAccount ? `\n      serviceAccountName: ${serviceAccount}` : ''}
      securityContext:
        windowsOptions:
          gmsaCredentialSpecName: gmsa-webapp1
      containers:
      - image: mcr.microsoft.com/windows/servercore/iis:windowsservercore-ltsc2019
        imagePullPolicy: Always
        name: iis
      nodeSelector:
        kubernetes.io/os: windows
        node.kubernetes.io/windows-build: 10.0.17763
`;

/** The credspec as the webhook marshals it (encoding/json: keys sorted). */
const CONTENTS = '{"ActiveDirectoryConfig":{"GroupManagedServiceAccounts":[{"Name":"WebApp1","Scope":"CONTOSO"},{"Name":"WebApp1","Scope":"contoso.com"}]},'
  + '"CmsPlugins":["ActiveDirectory"],"DomainJoinConfig":{"DnsName":"contoso.com","DnsTreeName":"contoso.com","Guid":"244818ae-87ac-4fcd-92ec-e79e5252348a",'
  + '"MachineAccountName":"WebApp1","NetBiosName":"CONTOSO","Sid":"S-1-5-21-2126449477-2524075714-3094792973"}}';

const DENIED = 'admission webhook "admission-webhook.windows-gmsa.sigs.k8s.io" denied the request: service account "unbound" is not authorized to `use` GMSA cred spec "gmsa-webapp1"';

test('the webhook is installed as its deploy script installs it', async () => {
  assert.match(await ok(['get', 'mutatingwebhookconfigurations,validatingwebhookconfigurations']),
    /^NAME\s+WEBHOOKS\s+AGE\nmutatingwebhookconfiguration\.admissionregistration\.k8s\.io\/gmsa-webhook\s+1\s+\S+\n\nNAME\s+WEBHOOKS\s+AGE\nvalidatingwebhookconfiguration\.admissionregistration\.k8s\.io\/gmsa-webhook\s+1\s+\S+\n$/);
  assert.equal(await ok(['get', 'namespace', 'gmsa-webhook', '-o', 'jsonpath={.metadata.labels.gmsa-webhook}']), 'disabled');
  assert.equal(await ok(['auth', 'can-i', 'create', 'localsubjectaccessreviews.authorization.k8s.io', '--as', 'system:serviceaccount:gmsa-webhook:gmsa-webhook', '-n', 'default']), 'yes\n');
});

test('a Windows pod naming a spec its service account may use gets the contents and runs with them; an unbound account is refused', async () => {
  assert.equal(await ok(['apply', '-f', '-'], CREDSPEC_AND_RBAC), [
    'gmsacredentialspec.windows.k8s.io/gmsa-webapp1 created', 'clusterrole.rbac.authorization.k8s.io/webapp1-role created',
    'rolebinding.rbac.authorization.k8s.io/allow-default-svc-account-read-on-gmsa-WebApp1 created', '',
  ].join('\n'));
  assert.equal(await ok(['auth', 'can-i', 'use', 'gmsacredentialspecs.windows.k8s.io/gmsa-webapp1', '--as', 'system:serviceaccount:default:default']), 'yes\n');

  assert.equal(await ok(['apply', '-f', '-'], deployment('with-creds')), 'deployment.apps/with-creds created\n');
  await ok(['rollout', 'status', 'deployment/with-creds', '--timeout=60s']);
  const pod = JSON.parse(await ok(['get', 'pods', '-l', 'run=with-creds', '-o', 'json'])).items[0];
  assert.equal(pod.spec.securityContext.windowsOptions.gmsaCredentialSpec, CONTENTS);
  const runtime = await new Promise<string>((resolve, reject) => execFile(process.execPath, [MAIN, 'describe-runtime', pod.metadata.name, '--kubeconfig', cluster.kubeconfig],
    (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout))));
  assert.ok(runtime.split('\n').includes(`    CredentialSpec: ${CONTENTS}`), runtime);

  await ok(['create', 'serviceaccount', 'unbound']);
  assert.equal(await ok(['apply', '-f', '-'], deployment('without-binding', 'unbound')), 'deployment.apps/without-binding created\n');
  // The ReplicaSet controller's create is refused: its FailedCreate event carries the webhook's message.
  const event = await eventually('FailedCreate', async () => {
    const out = await ok(['get', 'events', '--field-selector', 'reason=FailedCreate', '-o', 'jsonpath={.items[*].message}']);
    return out.includes(DENIED) ? out : undefined;
  });
  assert.match(event, /Error creating: admission webhook/);
  const direct = fails(['run', 'direct', '--image=mcr.microsoft.com/windows/nanoserver:ltsc2022', '--overrides',
    JSON.stringify({ spec: { serviceAccountName: 'unbound', securityContext: { windowsOptions: { gmsaCredentialSpecName: 'gmsa-webapp1' } } } })]);
  // The webhook's Status has a code (403) but no reason, which the API server keeps (ToStatusErr): kubectl names none.
  assert.equal(await direct, `Error from server: ${DENIED}\n`);
});
