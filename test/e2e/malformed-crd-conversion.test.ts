/**
 * CRDs refused for their spec.conversion, with apiextensions-apiserver's texts
 * (validation.go validateCustomResourceConversion, validateConversionReviewVersions; apiserver's
 * webhook ValidateWebhookURL and ValidateWebhookService), the errors at the internal field paths.
 */
import { after, before, test } from 'node:test';
import { removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

let cluster: TestCluster;
before(async () => { cluster = await startCluster(undefined, ['--api-only']); });
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NAME = 'gadgets.conv.example.com';
const PREFIX = `CustomResourceDefinition.apiextensions.k8s.io "${NAME}" is invalid: `;
const FORM = '; desired format: https://host[/path]';
const C = 'spec.conversion';

/** A valid CRD of gadgets.conv.example.com with the given spec.conversion. */
function crd(conversion: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: NAME },
    spec: {
      group: 'conv.example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' }, conversion,
      versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object' } } })),
    },
  });
}

const webhook = (clientConfig: Record<string, unknown>, conversionReviewVersions: string[] | null = ['v1']) =>
  crd({ strategy: 'Webhook', webhook: { clientConfig, ...(conversionReviewVersions ? { conversionReviewVersions } : {}) } });

const cases: Array<Omit<MalformedCase, 'method' | 'path' | 'status' | 'reason' | 'absent'>> = [
  {
    name: 'a webhook URL that is not https',
    body: webhook({ url: 'http://127.0.0.1:9443/convert' }),
    message: `${PREFIX}${C}.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`,
  },
  {
    name: 'a webhook URL with user information, a query and a fragment',
    body: webhook({ url: 'https://me@conv.example.com/convert?x=1#top' }),
    message: `${PREFIX}[${C}.webhookClientConfig.url: Invalid value: "me": user information is not permitted in the URL, ` +
      `${C}.webhookClientConfig.url: Invalid value: "top": fragments are not permitted in the URL, ` +
      `${C}.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL]`,
  },
  {
    name: 'a webhook URL without a host',
    body: webhook({ url: '/convert' }),
    message: `${PREFIX}[${C}.webhookClientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme${FORM}, ` +
      `${C}.webhookClientConfig.url: Invalid value: "": host must be specified${FORM}]`,
  },
  {
    name: 'both a URL and a service',
    body: webhook({ url: 'https://conv.example.com/convert', service: { namespace: 'default', name: 'conv' } }),
    message: `${PREFIX}${C}.webhookClientConfig: Required value: exactly one of url or service is required`,
  },
  {
    name: 'a service path segment that is no DNS subdomain, and port 0',
    body: webhook({ service: { namespace: 'default', name: 'conv', path: '/Convert', port: 0 } }),
    message: `${PREFIX}[${C}.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive, ` +
      `${C}.webhookClientConfig.service.path: Invalid value: "/Convert": segment[0]: a lowercase RFC 1123 subdomain must consist of lower case ` +
      "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for " +
      "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')]",
  },
  {
    name: 'no conversionReviewVersions',
    body: webhook({ url: 'https://conv.example.com/convert' }, null),
    message: `${PREFIX}${C}.conversionReviewVersions: Required value`,
  },
  {
    name: 'conversionReviewVersions the server does not speak, one twice',
    body: webhook({ url: 'https://conv.example.com/convert' }, ['v2', 'v2']),
    message: `${PREFIX}[${C}.conversionReviewVersions[1]: Invalid value: "v2": duplicate version, ` +
      `${C}.conversionReviewVersions: Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1]`,
  },
  {
    name: 'a webhook configured for the None strategy',
    body: crd({ strategy: 'None', webhook: { clientConfig: { url: 'https://conv.example.com/convert' }, conversionReviewVersions: ['v1'] } }),
    message: `${PREFIX}[${C}.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook, ` +
      `${C}.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook]`,
  },
  {
    name: 'an unknown strategy',
    body: crd({ strategy: 'Other' }),
    message: `${PREFIX}${C}.strategy: Unsupported value: "Other": supported values: "None", "Webhook"`,
  },
];

for (const c of cases) {
  test(c.name, () => checkMalformed(cluster, { ...c, method: 'POST', path: CRDS, status: 422, reason: 'Invalid', absent: `${CRDS}/${NAME}` }));
}
