/**
 * The GMSA webhook's decisions (src/addons/gmsa-webhook/admit.ts) against windows-gmsa's own
 * texts (admission-webhook/webhook.go and webhook_test.go at 993de21).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { mutateCreate, validateCreate, validateUpdate, type GMSALookups } from '../../src/addons/gmsa-webhook/admit.js';

const SPECS: Record<string, string> = { 'gmsa-webapp1': '{"CmsPlugins":["ActiveDirectory"],"DomainJoinConfig":{"DnsName":"contoso.com"}}' };

function lookups(allowed: Record<string, boolean> = { 'gmsa-webapp1': true }, reason = ''): GMSALookups {
  return {
    async mayUse(_sa, _ns, name) { return { allowed: allowed[name] === true, reason }; },
    async credSpecContents(name) {
      const contents = SPECS[name];
      return contents === undefined ? { code: 404, message: `cred spec ${name} does not exist` } : { contents };
    },
  };
}

const pod = (podOptions?: object, containerOptions?: object): Pod => ({
  metadata: { name: 'web' },
  spec: {
    serviceAccountName: 'default',
    ...(podOptions ? { securityContext: { windowsOptions: podOptions } } : {}),
    containers: [{ name: 'side', image: 'x' }, { name: 'app', image: 'x', ...(containerOptions ? { securityContext: { windowsOptions: containerOptions } } : {}) }],
  },
});

test('mutate: a named spec without contents gets the resource\'s credspec, at the pod and at the container', async () => {
  assert.deepEqual(await mutateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1' }, { gmsaCredentialSpecName: 'gmsa-webapp1' }), lookups()), {
    allowed: true,
    patch: [
      { op: 'add', path: '/spec/securityContext/windowsOptions/gmsaCredentialSpec', value: SPECS['gmsa-webapp1'] },
      { op: 'add', path: '/spec/containers/1/securityContext/windowsOptions/gmsaCredentialSpec', value: SPECS['gmsa-webapp1'] },
    ],
  });
  assert.deepEqual(await mutateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1', gmsaCredentialSpec: '{}' }), lookups()), { allowed: true });
  assert.deepEqual(await mutateCreate(pod(), lookups()), { allowed: true });
  assert.deepEqual(await mutateCreate(pod({ gmsaCredentialSpecName: 'nope' }), lookups()), { allowed: false, code: 404, message: 'cred spec nope does not exist' });
});

test('validate create: use permission, contents matching the resource, contents without a name', async () => {
  assert.deepEqual(await validateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1' }), 'default', lookups()), { allowed: true });
  assert.deepEqual(await validateCreate(pod(undefined, { gmsaCredentialSpecName: 'gmsa-webapp1' }), 'default', lookups({})), {
    allowed: false, code: 403, message: 'service account "default" is not authorized to `use` GMSA cred spec "gmsa-webapp1"',
  });
  assert.deepEqual(await validateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1' }), 'default', lookups({}, 'no RBAC policy matched')), {
    allowed: false, code: 403, message: 'service account "default" is not authorized to `use` GMSA cred spec "gmsa-webapp1", reason: "no RBAC policy matched"',
  });
  // The same JSON with keys in another order and spaces matches.
  const reordered = '{ "DomainJoinConfig": {"DnsName": "contoso.com"}, "CmsPlugins": ["ActiveDirectory"] }';
  assert.deepEqual(await validateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1', gmsaCredentialSpec: reordered }), 'default', lookups()), { allowed: true });
  assert.deepEqual(await validateCreate(pod(undefined, { gmsaCredentialSpecName: 'gmsa-webapp1', gmsaCredentialSpec: '{"CmsPlugins":[]}' }), 'default', lookups()), {
    allowed: false, code: 422, message: 'the GMSA cred spec contents for container "app" does not match the contents of GMSA resource "gmsa-webapp1"',
  });
  assert.deepEqual(await validateCreate(pod({ gmsaCredentialSpecName: 'gmsa-webapp1', gmsaCredentialSpec: 'not json' }), 'default', lookups()), {
    allowed: false, code: 422,
    message: 'the GMSA cred spec contents for pod "web" does not match the contents of GMSA resource "gmsa-webapp1": unable to parse "not json" as a JSON object: invalid character \'o\' in literal null (expecting \'u\')',
  });
  assert.deepEqual(await validateCreate(pod({ gmsaCredentialSpec: '{}' }), 'default', lookups()), {
    allowed: false, code: 422, message: 'pod "web" has a GMSA cred spec set, but does not define the name of the corresponding resource',
  });
});

test('validate update: the GMSA name and contents of pod and containers are immutable', () => {
  const before = pod({ gmsaCredentialSpecName: 'a', gmsaCredentialSpec: '{}' }, { gmsaCredentialSpecName: 'a' });
  assert.deepEqual(validateUpdate(before, before), { allowed: true });
  assert.deepEqual(validateUpdate(pod({ gmsaCredentialSpecName: 'b', gmsaCredentialSpec: '{}' }, { gmsaCredentialSpecName: 'a' }), before), {
    allowed: false, code: 403, message: 'cannot update an existing pod\'s GMSA settings (GMSA name modified on pod "web")',
  });
  assert.deepEqual(validateUpdate(pod({ gmsaCredentialSpecName: 'a', gmsaCredentialSpec: '{}' }, { gmsaCredentialSpecName: 'b', gmsaCredentialSpec: '{}' }), before), {
    allowed: false, code: 403, message: 'cannot update an existing pod\'s GMSA settings (GMSA name and contents modified on container "app")',
  });
});
