/** Malformed Mutating- and ValidatingWebhookConfigurations: upstream's validation answers, and nothing stored. */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

const good = { name: 'hook.example.com', clientConfig: { url: 'https://hooks.example.com/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'] };

function invalid(kind: 'Mutating' | 'Validating', name: string, hook: Record<string, unknown>, message: string): MalformedCase {
  const path = kind === 'Mutating' ? MWC : VWC;
  return {
    name: `${kind}WebhookConfiguration ${name}: ${message}`, method: 'POST', path, status: 422, reason: 'Invalid',
    body: JSON.stringify({ metadata: { name }, webhooks: [{ ...good, ...hook }] }),
    message: `${kind}WebhookConfiguration.admissionregistration.k8s.io "${name}" is invalid: ${message}`, absent: `${path}/${name}`,
  };
}

const cases: MalformedCase[] = [
  invalid('Validating', 'both-targets', { clientConfig: { url: 'https://a.example.com', service: { namespace: 'd', name: 's' } } },
    'webhooks[0].clientConfig: Required value: exactly one of url or service is required'),
  invalid('Validating', 'url-query', { clientConfig: { url: 'https://a.example.com/x?y=1#z' } },
    '[webhooks[0].clientConfig.url: Invalid value: "z": fragments are not permitted in the URL, ' +
    'webhooks[0].clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL]'),
  invalid('Mutating', 'no-side-effects', { sideEffects: undefined },
    'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun'),
  invalid('Mutating', 'reinvocation', { reinvocationPolicy: 'Always' },
    'webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"'),
  invalid('Mutating', 'no-versions', { admissionReviewVersions: [] },
    'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'),
  invalid('Validating', 'timeout', { timeoutSeconds: 0 },
    'webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds'),
  invalid('Validating', 'failure-policy', { failurePolicy: 'Retry' },
    'webhooks[0].failurePolicy: Unsupported value: "Retry": supported values: "Fail", "Ignore"'),
  invalid('Validating', 'rule', { rules: [{ operations: ['PATCH'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'] }] },
    '[webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE", ' +
    'webhooks[0].rules[0].apiGroups: Required value]'),
  invalid('Validating', 'match-condition', { matchConditions: [{ name: 'Bad Name', expression: ' ' }] },
    '[webhooks[0].matchConditions[0].expression: Required value, webhooks[0].matchConditions[0].name: Invalid value: "Bad Name": ' +
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
    "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')]"),
  invalid('Validating', 'undeclared', { matchConditions: [{ name: 'typo', expression: 'objekt.x == 1' }] },
    'webhooks[0].matchConditions[0].expression: Invalid value: "objekt.x == 1": compilation failed: ' +
    "ERROR: <input>:1:1: undeclared reference to 'objekt' (in container '')\n | objekt.x == 1\n | ^"),
  {
    name: 'ValidatingWebhookConfiguration with a string timeoutSeconds: the decoder refuses it', method: 'POST', path: VWC, status: 400, reason: 'BadRequest',
    body: JSON.stringify({ metadata: { name: 'string-timeout' }, webhooks: [{ ...good, timeoutSeconds: 'ten' }] }),
    message: 'ValidatingWebhookConfiguration in version "v1" cannot be handled as a ValidatingWebhookConfiguration: ' +
      'json: cannot unmarshal string into Go struct field ValidatingWebhook.webhooks.timeoutSeconds of type int32',
    absent: `${VWC}/string-timeout`,
  },
  {
    name: 'MutatingWebhookConfiguration with an unknown field under fieldValidation=Strict', method: 'POST', path: `${MWC}?fieldValidation=Strict`,
    status: 400, reason: 'BadRequest',
    body: JSON.stringify({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'strict' }, webhooks: [{ ...good, bogus: 1 }] }),
    message: 'MutatingWebhookConfiguration in version "v1" cannot be handled as a MutatingWebhookConfiguration: strict decoding error: unknown field "webhooks[0].bogus"',
    absent: `${MWC}/strict`,
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));
