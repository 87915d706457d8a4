import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { credentials, raw, rawJSON, removeDir, startCluster, type TestCluster } from '../helpers/cluster.js';
import { checkMalformed, type MalformedCase } from '../helpers/malformed.js';

/**
 * The malformed-input corpus of query parameters: list, get, watch, create, update, patch and
 * delete with bad values, answered as kube-apiserver v1.32 answers them (the conversion of the
 * query, ValidateListOptions and the other options' validation, and the storage's own checks).
 */
let cluster: TestCluster;
const NS = 'mq';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const CM = `${CMS}/cm1`;
const FUTURE = 999_999_999;

before(async () => {
  cluster = await startCluster(undefined, ['--api-only']);
  await rawJSON(cluster, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  for (const name of ['cm1', 'cm2', 'cm3']) await rawJSON(cluster, 'POST', CMS, { metadata: { name }, data: { k: 'v' } });
});
after(async () => { await cluster.stop(); removeDir(cluster.dataDir); });

const token = (t: unknown) => Buffer.from(typeof t === 'string' ? t : JSON.stringify(t)).toString('base64url');
const parseUintError = (v: string, why = 'invalid syntax') =>
  `resourceVersion: Invalid value: ${JSON.stringify(v)}: strconv.ParseUint: parsing ${JSON.stringify(v)}: ${why}`;
const listOptionsInvalid = (body: string) => `ListOptions.meta.k8s.io "" is invalid: ${body}`;
const badContinue = (why: string) => `invalid continue token: continue key is not valid${why}`;
const FUTURE_REVISION = 'etcdserver: mvcc: required revision is a future revision';

const cases: MalformedCase[] = [
  // resourceVersion: the watch cache parses it (500, no reason); etcd's store does for Exact and limited lists (400).
  { name: 'list resourceVersion=abc', method: 'GET', path: `${CMS}?resourceVersion=abc`, status: 500, reason: null, message: parseUintError('abc') },
  { name: 'list resourceVersion=-1', method: 'GET', path: `${CMS}?resourceVersion=-1`, status: 500, reason: null, message: parseUintError('-1') },
  { name: 'list resourceVersion=1.5', method: 'GET', path: `${CMS}?resourceVersion=1.5`, status: 500, reason: null, message: parseUintError('1.5') },
  {
    name: 'list resourceVersion beyond uint64', method: 'GET', path: `${CMS}?resourceVersion=99999999999999999999`,
    status: 500, reason: null, message: parseUintError('99999999999999999999', 'value out of range'),
  },
  {
    name: 'list resourceVersion=abc with a limit (served by etcd)', method: 'GET', path: `${CMS}?resourceVersion=abc&limit=5`,
    status: 400, reason: 'BadRequest', message: `invalid resource version: ${parseUintError('abc')}`,
  },
  {
    name: 'list resourceVersion=abc with resourceVersionMatch=Exact', method: 'GET', path: `${CMS}?resourceVersion=abc&resourceVersionMatch=Exact`,
    status: 400, reason: 'BadRequest', message: `invalid resource version: ${parseUintError('abc')}`,
  },
  {
    name: 'list resourceVersionMatch=Exact at a future revision', method: 'GET', path: `${CMS}?resourceVersion=${FUTURE}&resourceVersionMatch=Exact`,
    status: 500, reason: null, message: FUTURE_REVISION,
  },
  {
    name: 'list with a limit at a future revision', method: 'GET', path: `${CMS}?resourceVersion=${FUTURE}&limit=1`,
    status: 500, reason: null, message: FUTURE_REVISION,
  },
  // ValidateListOptions.
  {
    name: 'list resourceVersionMatch=Bogus', method: 'GET', path: `${CMS}?resourceVersion=1&resourceVersionMatch=Bogus`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""'),
    details: {
      group: 'meta.k8s.io', kind: 'ListOptions',
      causes: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""', field: 'resourceVersionMatch' }],
    },
  },
  {
    name: 'list resourceVersionMatch=Exact without a resourceVersion', method: 'GET', path: `${CMS}?resourceVersionMatch=Exact`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'),
  },
  {
    name: 'list resourceVersionMatch=Exact with resourceVersion=0', method: 'GET', path: `${CMS}?resourceVersion=0&resourceVersionMatch=Exact`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
  },
  {
    name: 'list resourceVersionMatch with continue', method: 'GET',
    path: `${CMS}?resourceVersion=1&resourceVersionMatch=NotOlderThan&continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: 'cm1\u0000' })}`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided'),
  },
  {
    name: 'list resourceVersionMatch=Bogus without resourceVersion: both errors', method: 'GET', path: `${CMS}?resourceVersionMatch=Bogus`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, ' +
      'resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""]'),
  },
  {
    name: 'list sendInitialEvents without watch', method: 'GET', path: `${CMS}?sendInitialEvents=true`,
    status: 422, reason: 'Invalid', message: listOptionsInvalid('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'),
  },
  // continue tokens (storage.DecodeContinue).
  {
    name: 'list continue holding revision 10^12', method: 'GET',
    path: `${CMS}?limit=1&continue=${token({ v: 'meta.k8s.io/v1', rv: 1e12, start: 'cm1\u0000' })}`,
    status: 500, reason: null, message: FUTURE_REVISION,
  },
  {
    name: 'list continue that is not base64', method: 'GET', path: `${CMS}?continue=!!garbage!!`,
    status: 400, reason: 'BadRequest', message: badContinue(': illegal base64 data at input byte 0'),
  },
  {
    name: 'list continue with a dangling base64 character', method: 'GET', path: `${CMS}?continue=abcde`,
    status: 400, reason: 'BadRequest', message: badContinue(': illegal base64 data at input byte 4'),
  },
  {
    name: 'list continue of base64 that is not JSON', method: 'GET', path: `${CMS}?continue=${token('hello')}`,
    status: 400, reason: 'BadRequest', message: badContinue(": invalid character 'h' looking for beginning of value"),
  },
  {
    name: 'list continue of truncated JSON', method: 'GET', path: `${CMS}?continue=${token('{"v":')}`,
    status: 400, reason: 'BadRequest', message: badContinue(': unexpected end of JSON input'),
  },
  {
    name: 'list continue whose rv is a string', method: 'GET', path: `${CMS}?continue=${token({ v: 'meta.k8s.io/v1', rv: '5', start: 'cm1' })}`,
    status: 400, reason: 'BadRequest',
    message: badContinue(': json: cannot unmarshal string into Go struct field continueToken.rv of type int64'),
  },
  {
    name: 'list continue of an unknown version', method: 'GET', path: `${CMS}?continue=${token({ v: 'meta.k8s.io/v2', rv: 1, start: 'cm1' })}`,
    status: 400, reason: 'BadRequest', message: badContinue(': server does not recognize this encoded version meta.k8s.io/v2'),
  },
  {
    name: 'list continue without a revision', method: 'GET', path: `${CMS}?continue=${token({ v: 'meta.k8s.io/v1', start: 'cm1' })}`,
    status: 400, reason: 'BadRequest', message: badContinue(': incorrect encoded start resourceVersion (version meta.k8s.io/v1)'),
  },
  {
    name: 'list continue without a start key', method: 'GET', path: `${CMS}?continue=${token({ v: 'meta.k8s.io/v1', rv: 1 })}`,
    status: 400, reason: 'BadRequest', message: badContinue(': encoded start key empty (version meta.k8s.io/v1)'),
  },
  {
    name: 'list continue climbing out of its prefix', method: 'GET', path: `${CMS}?continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: '../secrets/x' })}`,
    status: 400, reason: 'BadRequest', message: badContinue(': ../secrets/x'),
  },
  {
    name: 'list continue with a resourceVersion', method: 'GET',
    path: `${CMS}?resourceVersion=5&continue=${token({ v: 'meta.k8s.io/v1', rv: 1, start: 'cm1\u0000' })}`,
    status: 400, reason: 'BadRequest', message: 'specifying resource version is not allowed when using continue',
  },
  // limit and timeoutSeconds are int64s (strconv.ParseInt).
  { name: 'list limit=abc', method: 'GET', path: `${CMS}?limit=abc`, status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  { name: 'list limit= (empty)', method: 'GET', path: `${CMS}?limit=`, status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "": invalid syntax' },
  {
    name: 'list limit beyond int64', method: 'GET', path: `${CMS}?limit=99999999999999999999`,
    status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "99999999999999999999": value out of range',
  },
  { name: 'list timeoutSeconds=abc', method: 'GET', path: `${CMS}?timeoutSeconds=abc`, status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  // Selectors.
  {
    name: 'list fieldSelector metadata.name=a=b', method: 'GET', path: `${CMS}?fieldSelector=${encodeURIComponent('metadata.name=a=b')}`,
    status: 400, reason: 'BadRequest', message: 'invalid field selector: unescaped character in value: 61',
  },
  {
    name: 'list fieldSelector with a bad escape', method: 'GET', path: `${CMS}?fieldSelector=${encodeURIComponent('metadata.name=a\\x')}`,
    status: 400, reason: 'BadRequest', message: 'invalid field selector: invalid escape sequence: \\x',
  },
  {
    name: 'list fieldSelector without an operator', method: 'GET', path: `${CMS}?fieldSelector=metadata.name`,
    status: 400, reason: 'BadRequest', message: "invalid selector: 'metadata.name'; can't understand 'metadata.name'",
  },
  {
    name: 'list fieldSelector on an unknown field', method: 'GET', path: `${CMS}?fieldSelector=${encodeURIComponent('spec.bogus=a')}`,
    status: 400, reason: 'BadRequest', message: '"spec.bogus" is not a known field selector: only "metadata.name", "metadata.namespace"',
  },
  {
    name: 'list labelSelector with an unclosed set', method: 'GET', path: `${CMS}?labelSelector=${encodeURIComponent('env in (prod')}`,
    status: 400, reason: 'BadRequest', message: "unable to parse requirement: found '', expected: ',' or ')'",
  },
  {
    name: 'list labelSelector with a stray word', method: 'GET', path: `${CMS}?labelSelector=${encodeURIComponent('app=web server')}`,
    status: 400, reason: 'BadRequest', message: "found 'server', expected: ',' or 'end of string'",
  },
  // get.
  { name: 'get resourceVersion=abc', method: 'GET', path: `${CM}?resourceVersion=abc`, status: 500, reason: null, message: parseUintError('abc') },
  { name: 'get resourceVersion=-1', method: 'GET', path: `${CM}?resourceVersion=-1`, status: 500, reason: null, message: parseUintError('-1') },
  { name: 'get resourceVersion=1.5', method: 'GET', path: `${CM}?resourceVersion=1.5`, status: 500, reason: null, message: parseUintError('1.5') },
  // watch errors come before the stream starts.
  { name: 'watch resourceVersion=abc', method: 'GET', path: `${CMS}?watch=1&resourceVersion=abc`, status: 500, reason: null, message: parseUintError('abc') },
  { name: 'watch resourceVersion=-1', method: 'GET', path: `${CMS}?watch=1&resourceVersion=-1`, status: 500, reason: null, message: parseUintError('-1') },
  { name: 'watch resourceVersion=1.5', method: 'GET', path: `/api/v1/watch/namespaces/${NS}/configmaps?resourceVersion=1.5`, status: 500, reason: null, message: parseUintError('1.5') },
  {
    name: 'watch resourceVersionMatch=Exact', method: 'GET', path: `${CMS}?watch=1&resourceVersion=1&resourceVersionMatch=Exact`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, ' +
      'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]'),
  },
  {
    name: 'watch sendInitialEvents without resourceVersionMatch', method: 'GET', path: `${CMS}?watch=1&sendInitialEvents=true`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
  },
  { name: 'watch timeoutSeconds=abc', method: 'GET', path: `${CMS}?watch=1&timeoutSeconds=abc`, status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  {
    name: 'watch of one object with a field selector naming another', method: 'GET',
    path: `/api/v1/watch/namespaces/${NS}/configmaps/cm1?fieldSelector=${encodeURIComponent('metadata.name=cm2')}`,
    status: 400, reason: 'BadRequest', message: "fieldSelector metadata.name doesn't match requested name",
  },
  {
    name: 'watch of one object with a field selector not on its name', method: 'GET',
    path: `/api/v1/watch/namespaces/${NS}/configmaps/cm1?fieldSelector=${encodeURIComponent(`metadata.namespace=${NS}`)}`,
    status: 400, reason: 'BadRequest', message: "fieldSelector metadata.name doesn't match requested name",
  },
  {
    name: 'list as a Table with includeObject=Bogus', method: 'GET', path: `${CMS}?includeObject=Bogus`,
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, status: 400, reason: 'BadRequest',
    message: 'Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be \'Metadata\', \'Object\', \'None\', or empty',
  },
  {
    name: 'get as a Table with includeObject=Bogus', method: 'GET', path: `${CM}?includeObject=Bogus`,
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, status: 400, reason: 'BadRequest',
    message: 'Unable to convert to Table as requested: includeObject: Invalid value: "Bogus": must be \'Metadata\', \'Object\', \'None\', or empty',
  },
  // create, update, patch options.
  {
    name: 'create dryRun=Bogus', method: 'POST', path: `${CMS}?dryRun=Bogus`, body: JSON.stringify({ metadata: { name: 'dry' } }),
    status: 422, reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
    absent: `${CMS}/dry`,
  },
  {
    name: 'create fieldManager over 128 bytes', method: 'POST', path: `${CMS}?fieldManager=${'m'.repeat(129)}`, body: JSON.stringify({ metadata: { name: 'long-manager' } }),
    status: 422, reason: 'Invalid', message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    absent: `${CMS}/long-manager`,
  },
  {
    name: 'create fieldManager with a control character', method: 'POST', path: `${CMS}?fieldManager=a%07b`, body: JSON.stringify({ metadata: { name: 'bell-manager' } }),
    status: 422, reason: 'Invalid',
    message: 'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\\ab": invalid character U+0007 (at position 1)',
    absent: `${CMS}/bell-manager`,
  },
  {
    name: 'create fieldValidation=Bogus', method: 'POST', path: `${CMS}?fieldValidation=Bogus`, body: JSON.stringify({ metadata: { name: 'fv' } }),
    status: 422, reason: 'Invalid',
    message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"',
    absent: `${CMS}/fv`,
  },
  {
    name: 'create with every option wrong: one 422 with all of them', method: 'POST', path: `${CMS}?fieldManager=${'m'.repeat(129)}&dryRun=x&fieldValidation=y`,
    body: JSON.stringify({ metadata: { name: 'all-wrong' } }), status: 422, reason: 'Invalid',
    message: 'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Too long: may not be more than 128 bytes, ' +
      'dryRun: Unsupported value: []string{"x"}: supported values: "All", ' +
      'fieldValidation: Unsupported value: "y": supported values: "", "Ignore", "Strict", "Warn"]',
    absent: `${CMS}/all-wrong`,
  },
  {
    name: 'update dryRun=Bogus and fieldValidation=Bogus', method: 'PUT', path: `${CM}?dryRun=Bogus&fieldValidation=Bogus`,
    body: JSON.stringify({ metadata: { name: 'cm1' }, data: { k: 'changed' } }), status: 422, reason: 'Invalid',
    message: 'UpdateOptions.meta.k8s.io "" is invalid: [dryRun: Unsupported value: []string{"Bogus"}: supported values: "All", ' +
      'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"]',
    unchanged: CM,
  },
  {
    name: 'patch with force and a bad dryRun', method: 'PATCH', path: `${CM}?force=true&dryRun=Bogus`,
    body: JSON.stringify({ data: { k: 'changed' } }), contentType: 'application/merge-patch+json', status: 422, reason: 'Invalid',
    message: 'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, ' +
      'dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"]',
    unchanged: CM,
  },
  // delete options.
  {
    name: 'delete gracePeriodSeconds=abc', method: 'DELETE', path: `${CM}?gracePeriodSeconds=abc`,
    status: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax', unchanged: CM,
  },
  {
    name: 'delete propagationPolicy=Bogus', method: 'DELETE', path: `${CM}?propagationPolicy=Bogus`,
    status: 422, reason: 'Invalid',
    message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
    unchanged: CM,
  },
  {
    name: 'delete with orphanDependents and propagationPolicy', method: 'DELETE', path: `${CM}?orphanDependents=false&propagationPolicy=Foreground`,
    status: 422, reason: 'Invalid',
    message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
    unchanged: CM,
  },
  {
    name: 'delete dryRun=Bogus', method: 'DELETE', path: `${CM}?dryRun=Bogus`,
    status: 422, reason: 'Invalid', message: 'DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"',
    unchanged: CM,
  },
  {
    name: 'deletecollection with a malformed field selector', method: 'DELETE', path: `${CMS}?fieldSelector=${encodeURIComponent('metadata.name=a=b')}`,
    status: 400, reason: 'BadRequest', message: 'invalid field selector: unescaped character in value: 61', unchanged: CM,
  },
  {
    name: 'deletecollection with resourceVersionMatch=Bogus', method: 'DELETE', path: `${CMS}?resourceVersion=1&resourceVersionMatch=Bogus`,
    status: 422, reason: 'Invalid',
    message: listOptionsInvalid('resourceVersionMatch: Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""'),
    unchanged: CM,
  },
];

for (const c of cases) test(c.name, () => checkMalformed(cluster, c));

/** The status and first line of a streamed answer, then the connection is dropped. */
function firstLine(path: string): Promise<{ status: number; line: string }> {
  const c = credentials(cluster);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: cluster.port, path, method: 'GET', ca: c.ca, cert: c.cert, key: c.key, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      const done = () => { resolve({ status: res.statusCode ?? 0, line: text.split('\n', 1)[0] ?? '' }); req.destroy(); };
      res.on('data', (d: string) => { text += d; if (text.includes('\n')) done(); });
      res.on('end', done);
    });
    req.on('error', (e) => { if (!req.destroyed) reject(e); });
    req.end();
  });
}

test('watch=maybe is a watch (any value but 0 and false is true)', async () => {
  const r = await firstLine(`${CMS}?watch=maybe`);
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.line).type, 'ADDED');
});

test('a /watch/ path from no version streams the state first, without the initial-events bookmark', async () => {
  const count = (await names()).length;
  const r = await raw(cluster, 'GET', `/api/v1/watch/namespaces/${NS}/configmaps?allowWatchBookmarks=true&timeoutSeconds=1`);
  assert.equal(r.status, 200);
  const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => e.type), Array(count).fill('ADDED'));
});

test('a GET of one object ignores ?watch; its /watch/ path watches it alone', async () => {
  const got = await rawJSON(cluster, 'GET', `${CM}?watch=true`);
  assert.equal(got.status, 200);
  assert.equal(got.body.kind, 'ConfigMap');
  const r = await raw(cluster, 'GET', `/api/v1/watch/namespaces/${NS}/configmaps/cm1?timeoutSeconds=1&fieldSelector=${encodeURIComponent('metadata.name=cm1')}`);
  assert.equal(r.status, 200);
  const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'cm1']]);
});

test('watch=False is a list', async () => {
  const r = await rawJSON(cluster, 'GET', `${CMS}?watch=False`);
  assert.equal(r.status, 200);
  assert.equal(r.body.kind, 'ConfigMapList');
});

/** The names of the namespace's config maps (the namespace controller adds kube-root-ca.crt to ours). */
async function names(): Promise<string[]> {
  return (await rawJSON(cluster, 'GET', CMS)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
}

test('a watch from no version with allowWatchBookmarks=maybe ends its initial events with a bookmark', async () => {
  const count = (await names()).length;
  const r = await raw(cluster, 'GET', `${CMS}?watch=1&allowWatchBookmarks=maybe&timeoutSeconds=1`);
  assert.equal(r.status, 200);
  const events = r.body.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events.map((e) => e.type), [...Array(count).fill('ADDED'), 'BOOKMARK']);
  assert.deepEqual(events[count].object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
});

test('limit=-1 and a limit of the largest int64 list everything', async () => {
  const count = (await names()).length;
  for (const limit of ['-1', '9223372036854775807']) {
    const r = await rawJSON(cluster, 'GET', `${CMS}?limit=${limit}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.items.length, count);
    assert.equal(r.body.metadata.continue, undefined);
  }
});

test('a list at resourceVersion 0 ignores its limit (the watch cache serves it whole)', async () => {
  const r = await rawJSON(cluster, 'GET', `${CMS}?resourceVersion=0&limit=1`);
  assert.equal(r.status, 200);
  assert.equal(r.body.items.length, (await names()).length);
  assert.equal(r.body.metadata.continue, undefined);
});

test('pretty=abc is ignored', async () => {
  const r = await rawJSON(cluster, 'GET', `${CM}?pretty=abc`);
  assert.equal(r.status, 200);
  assert.equal(r.body.metadata.name, 'cm1');
});

test('get and list at an old resourceVersion serve the latest state', async () => {
  const r = await rawJSON(cluster, 'GET', `${CM}?resourceVersion=1`);
  assert.equal(r.status, 200);
  const l = await rawJSON(cluster, 'GET', `${CMS}?resourceVersion=1&resourceVersionMatch=NotOlderThan`);
  assert.equal(l.status, 200);
  assert.equal(l.body.items.length, (await names()).length);
});

test('a continue token the server handed out still works', async () => {
  const all = await names();
  const page = await rawJSON(cluster, 'GET', `${CMS}?limit=1`);
  assert.match(page.body.metadata.continue, /^[A-Za-z0-9_-]+$/);
  const next = await rawJSON(cluster, 'GET', `${CMS}?limit=50&continue=${page.body.metadata.continue}`);
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.deepEqual(next.body.items.map((i: { metadata: { name: string } }) => i.metadata.name), all.slice(1));
});

for (const [what, path] of [['list', `${CMS}?resourceVersionMatch=NotOlderThan&resourceVersion=${FUTURE}`], ['get', `${CM}?resourceVersion=${FUTURE}`]] as const) {
  test(`${what} at a resourceVersion not reached yet waits, then answers 504 Too large resource version`, async () => {
    const started = Date.now();
    await checkMalformed(cluster, {
      name: what, method: 'GET', path, status: 504, reason: 'Timeout',
      message: new RegExp(`^Timeout: Too large resource version: ${FUTURE}, current: \\d+$`),
      details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
      responseHeaders: { 'Retry-After': '1' },
    });
    assert.ok(Date.now() - started >= 2900, 'waits for the revision first');
  });
}
