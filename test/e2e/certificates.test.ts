/**
 * certificates.k8s.io/v1 CertificateSigningRequests as a kubectl user meets
 * them: the Kubernetes documentation's walkthrough (a key and request made
 * by the user, `kubectl certificate approve`, the issued certificate used
 * as a kubeconfig credential), the printer's columns, validation texts, the
 * certificates admission plugins, and the csrapproving/csrsigning
 * controllers' answers for kubelet requests.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { credentials, eventually, kubectlFails, kubectlOk, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { certificateRequest } from '../../src/pki/issue.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const ok = (args: string[], input?: string) => kubectlOk(cluster, args, input);
const fails = (args: string[], input?: string) => kubectlFails(cluster, args, input);

function csrYaml(name: string, request: string, signerName: string, usages: string[], extra = ''): string {
  return `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${Buffer.from(request).toString('base64')}
  signerName: ${signerName}
  usages: [${usages.map((u) => `"${u}"`).join(', ')}]
${extra}`;
}

const condition = async (name: string) => (await ok(['get', 'csr', name, '--no-headers', '-o', 'custom-columns=C:.status.conditions[*].type'])).trim();
const issued = (name: string) => eventually(`the certificate of ${name}`, async () =>
  (await ok(['get', 'csr', name, '-o', 'jsonpath={.status.certificate}'])) || undefined);

describe('a user certificate, as the documentation walks through it', () => {
  test('apply, print, approve, sign, and authenticate with the certificate', async () => {
    const { request, key } = await certificateRequest([{ O: ['devs'] }, { CN: ['myuser'] }]);
    assert.equal(await ok(['apply', '-f', '-'], csrYaml('myuser', request, 'kubernetes.io/kube-apiserver-client', ['client auth'], '  expirationSeconds: 86400')),
      'certificatesigningrequest.certificates.k8s.io/myuser created\n');
    const [header, row] = (await ok(['get', 'csr', 'myuser'])).trimEnd().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(header, ['NAME', 'AGE', 'SIGNERNAME', 'REQUESTOR', 'REQUESTEDDURATION', 'CONDITION']);
    assert.deepEqual([row?.[0], ...row!.slice(2)], ['myuser', 'kubernetes.io/kube-apiserver-client', 'kubernetes-admin', '24h', 'Pending']);
    // The requester is who created it, whatever the body said.
    assert.equal(await ok(['get', 'csr', 'myuser', '-o', 'jsonpath={.spec.username} {.spec.groups}']), 'kubernetes-admin ["system:masters","system:authenticated"]');

    assert.equal(await ok(['certificate', 'approve', 'myuser']), 'certificatesigningrequest.certificates.k8s.io/myuser approved\n');
    const pem = Buffer.from(await issued('myuser'), 'base64');
    assert.equal((await ok(['get', 'csr', 'myuser', '--no-headers'])).trim().split(/\s+/).pop(), 'Approved,Issued');
    assert.equal(await ok(['get', 'csr', 'myuser', '-o', 'jsonpath={.status.conditions[0].reason}: {.status.conditions[0].message}']),
      'KubectlApprove: This CSR was approved by kubectl certificate approve.');
    const cert = new X509Certificate(pem);
    assert.equal(cert.subject, 'O=devs\nCN=myuser');
    assert.equal(cert.issuer, 'CN=winkube-ca');
    // 24h requested, long enough to be backdated 5 minutes at both ends.
    assert.equal(Date.parse(cert.validTo) - Date.parse(cert.validFrom), 24 * 3600_000);
    assert.ok(cert.checkIssued(new X509Certificate(credentials(cluster).ca)));
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2']);

    const dir = cluster.dataDir;
    writeFileSync(join(dir, 'myuser.crt'), pem);
    writeFileSync(join(dir, 'myuser.key'), key);
    const kc = join(dir, 'myuser.kubeconfig');
    writeFileSync(kc, await ok(['config', 'view', '--raw', '--minify']));
    await ok(['--kubeconfig', kc, 'config', 'set-credentials', 'myuser', `--client-certificate=${join(dir, 'myuser.crt')}`, `--client-key=${join(dir, 'myuser.key')}`, '--embed-certs']);
    await ok(['--kubeconfig', kc, 'config', 'set-context', '--current', '--user', 'myuser']);
    const whoami = (await ok(['--kubeconfig', kc, 'auth', 'whoami'])).trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(whoami, [['ATTRIBUTE', 'VALUE'], ['Username', 'myuser'], ['Groups', '[devs system:authenticated]']]);
  });

  test('deny: the request is never signed', async () => {
    const { request } = await certificateRequest([{ CN: ['denied'] }]);
    await ok(['apply', '-f', '-'], csrYaml('denied', request, 'kubernetes.io/kube-apiserver-client', ['client auth']));
    assert.equal(await ok(['certificate', 'deny', 'denied']), 'certificatesigningrequest.certificates.k8s.io/denied denied\n');
    assert.equal(await condition('denied'), 'Denied');
    assert.equal(await ok(['get', 'csr', 'denied', '-o', 'jsonpath={.status.certificate}']), '');
    // kubectl will not approve it; the API server refuses it too: Approved and Denied are exclusive.
    assert.equal(await fails(['certificate', 'approve', 'denied']), 'error: certificate signing request "denied" is already Denied\n');
    const approve = JSON.stringify([{ op: 'add', path: '/status/conditions/-', value: { type: 'Approved', status: 'True' } }]);
    assert.equal(await fails(['patch', 'csr', 'denied', '--subresource=approval', '--type=json', '-p', approve]),
      'The CertificateSigningRequest "denied" is invalid: status.conditions[1].type: Invalid value: "Approved": Approved and Denied conditions are mutually exclusive\n');
  });
});

describe('what the API server refuses', () => {
  test('validation: the request, the usages, the signer name and the duration, with upstream\'s texts', async () => {
    const bad = csrYaml('bad', 'hello\n', 'example', ['client auth', 'client auth', 'foo'], '  expirationSeconds: 5');
    assert.equal(await fails(['apply', '-f', '-'], bad), `The CertificateSigningRequest "bad" is invalid: 
* spec.request: Invalid value: []byte{0x68, 0x65, 0x6c, 0x6c, 0x6f, 0xa}: PEM block type must be CERTIFICATE REQUEST
* spec.usages[2]: Unsupported value: "foo": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"
* spec.usages[1]: Duplicate value: "client auth"
* spec.signerName: Invalid value: "example": must be a fully qualified domain and path of the form 'example.com/signer-name'
* spec.expirationSeconds: Invalid value: 5: may not specify a duration less than 600 seconds (10 minutes)
`);
    const { request } = await certificateRequest([{ CN: ['x'] }]);
    assert.equal(await fails(['apply', '-f', '-'], csrYaml('legacy', request, 'kubernetes.io/legacy-unknown', ['client auth'])),
      'The CertificateSigningRequest "legacy" is invalid: spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version\n');
    assert.equal(await fails(['get', 'csr', 'bad']), 'Error from server (NotFound): certificatesigningrequests.certificates.k8s.io "bad" not found\n');
  });

  test('CertificateSubjectRestriction: no system:masters certificate from the kube-apiserver-client signer', async () => {
    const { request } = await certificateRequest([{ O: ['system:masters'] }, { CN: ['evil'] }]);
    assert.equal(await fails(['apply', '-f', '-'], csrYaml('evil', request, 'kubernetes.io/kube-apiserver-client', ['client auth'])),
      'Error from server (Forbidden): error when creating "STDIN": certificatesigningrequests.certificates.k8s.io "evil" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed\n');
  });

  test('CertificateApproval and CertificateSigning: approving needs `approve`, issuing needs `sign`, on the signer', async () => {
    const { request } = await certificateRequest([{ CN: ['approver-test'] }]);
    await ok(['apply', '-f', '-'], csrYaml('approver-test', request, 'example.com/signer', ['client auth']));
    await ok(['create', 'clusterrole', 'csr-writer', '--verb=get,update,patch', '--resource=certificatesigningrequests,certificatesigningrequests/approval,certificatesigningrequests/status']);
    await ok(['create', 'clusterrolebinding', 'csr-writer', '--clusterrole=csr-writer', '--user=bob']);
    assert.equal(await fails(['certificate', 'approve', 'approver-test', '--as', 'bob']),
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "approver-test" is forbidden: user not permitted to approve requests with signerName "example.com/signer"\n');
    // `approve` on the signer's domain (example.com/*) is enough.
    // Signers are not a served resource (kubectl create clusterrole would refuse them): a manifest names them.
    await ok(['apply', '-f', '-'], `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: example-approver}
rules: [{apiGroups: [certificates.k8s.io], resources: [signers], resourceNames: ["example.com/*"], verbs: [approve]}]
`);
    await ok(['create', 'clusterrolebinding', 'example-approver', '--clusterrole=example-approver', '--user=bob']);
    assert.equal(await ok(['certificate', 'approve', 'approver-test', '--as', 'bob']), 'certificatesigningrequest.certificates.k8s.io/approver-test approved\n');
    // Nobody signs example.com/signer here: a user issuing it needs `sign`.
    const patch = JSON.stringify({ status: { certificate: Buffer.from(credentials(cluster).ca).toString('base64') } });
    assert.equal(await fails(['patch', 'csr', 'approver-test', '--subresource=status', '--type=merge', '-p', patch, '--as', 'bob']),
      'Error from server (Forbidden): certificatesigningrequests.certificates.k8s.io "approver-test" is forbidden: user not permitted to sign requests with signerName "example.com/signer"\n');
    // The status subresource may not remove the approval; it may set the certificate, once.
    const drop = JSON.stringify({ status: { conditions: [] } });
    assert.equal(await fails(['patch', 'csr', 'approver-test', '--subresource=status', '--type=merge', '-p', drop]),
      'The CertificateSigningRequest "approver-test" is invalid: status.conditions: Forbidden: updates may not remove a condition of type "Approved"\n');
    await ok(['patch', 'csr', 'approver-test', '--subresource=status', '--type=merge', '-p', patch]);
    assert.equal((await ok(['get', 'csr', 'approver-test', '--no-headers'])).trim().split(/\s+/).pop(), 'Approved,Issued');
    assert.equal(await fails(['patch', 'csr', 'approver-test', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { certificate: null } })]),
      'The CertificateSigningRequest "approver-test" is invalid: status.certificate: Forbidden: updates may not modify existing certificate content\n');
    // The main resource changes only metadata.
    await ok(['patch', 'csr', 'approver-test', '--type=merge', '-p', '{"metadata":{"labels":{"a":"b"}},"spec":{"usages":["server auth"]}}']);
    assert.equal(await ok(['get', 'csr', 'approver-test', '-o', 'jsonpath={.metadata.labels.a} {.spec.usages}']), 'b ["client auth"]');
  });
});

describe('kubelet requests: csrapproving and csrsigning', () => {
  test('a node client request of someone allowed nodeclient is auto-approved and signed', async () => {
    const { request } = await certificateRequest([{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }]);
    await ok(['apply', '-f', '-'], csrYaml('node-csr-n1', request, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    const pem = Buffer.from(await issued('node-csr-n1'), 'base64');
    assert.equal(new X509Certificate(pem).subject, 'O=system:nodes\nCN=system:node:n1');
    assert.equal(await ok(['get', 'csr', 'node-csr-n1', '-o', 'jsonpath={.status.conditions[0].type} {.status.conditions[0].reason}: {.status.conditions[0].message}']),
      'Approved AutoApproved: Auto approving kubelet client certificate after SubjectAccessReview.');
  });

  test('a request the kubelet signer refuses is marked Failed with its reason', async () => {
    const { request } = await certificateRequest([{ O: ['devs'] }, { CN: ['system:node:n2'] }]);
    await ok(['apply', '-f', '-'], csrYaml('not-a-node', request, 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    // Not a node's request: the approver leaves it to a person.
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(await condition('not-a-node'), '<none>');
    await ok(['certificate', 'approve', 'not-a-node']);
    await eventually('the Failed condition', async () => ((await condition('not-a-node')) === 'Approved,Failed' ? true : undefined));
    assert.equal(await ok(['get', 'csr', 'not-a-node', '-o', 'jsonpath={.status.conditions[1].reason}: {.status.conditions[1].message}']),
      'SignerValidationFailure: subject organization is not system:nodes');
    assert.equal((await ok(['get', 'csr', 'not-a-node', '--no-headers'])).trim().split(/\s+/).pop(), 'Approved,Failed');
  });
});
