import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auditor } from '../../src/api/audit/auditor.js';
import { parseAuditPolicy } from '../../src/api/audit/policy.js';
import { RotatingLog, backupTimestamp } from '../../src/api/audit/rotating-log.js';
import { resourceAttributes } from '../../src/authorization/types.js';

const policy = parseAuditPolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Request
    omitManagedFields: true
    verbs: ["create"]
  - level: Metadata
`);

test('an event goes through its stages as kube-apiserver logs them, fields in its order', () => {
  const lines: string[] = [];
  let t = Date.parse('2025-01-02T03:04:05.006Z');
  const auditor = new Auditor(policy, { write: (l) => lines.push(l) }, () => new Date(t += 1));
  const attrs = resourceAttributes({ name: 'alice', groups: ['devs', 'system:authenticated'] }, {
    verb: 'create', apiVersion: 'v1', resource: 'configmaps', namespace: 'default',
  });
  const ev = auditor.begin(attrs, { requestURI: '/api/v1/namespaces/default/configmaps', userAgent: 'kubectl/v1.32.0', sourceIPs: ['10.0.0.1'],
    received: new Date('2025-01-02T03:04:05.000Z'), auditID: 'id-1' }, false)!;
  ev.annotate('authorization.k8s.io/decision', 'allow');
  ev.annotate('authorization.k8s.io/reason', '');
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', managedFields: [{ manager: 'x' }] }, data: { a: 'b' } };
  ev.requestObject(obj);
  obj.data.a = 'changed later';
  ev.responseStarted(201);
  ev.responseObject({ ...obj, metadata: { ...obj.metadata, uid: 'u1' } });
  ev.complete();
  assert.deepEqual(lines, [
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"id-1","stage":"RequestReceived","requestURI":"/api/v1/namespaces/default/configmaps","verb":"create","user":{"username":"alice","groups":["devs","system:authenticated"]},"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.32.0","objectRef":{"resource":"configmaps","namespace":"default","apiVersion":"v1"},"requestReceivedTimestamp":"2025-01-02T03:04:05.000000Z","stageTimestamp":"2025-01-02T03:04:05.000000Z"}\n',
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"id-1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps","verb":"create","user":{"username":"alice","groups":["devs","system:authenticated"]},"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.32.0","objectRef":{"resource":"configmaps","namespace":"default","name":"cm","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"b"}},"requestReceivedTimestamp":"2025-01-02T03:04:05.000000Z","stageTimestamp":"2025-01-02T03:04:05.007000Z","annotations":{"authorization.k8s.io/decision":"allow","authorization.k8s.io/reason":""}}\n',
  ]);
});

test('a long-running request logs ResponseStarted; one that never answered is faked as upstream does', () => {
  const lines: string[] = [];
  const auditor = new Auditor(policy, { write: (l) => lines.push(l) }, () => new Date(0));
  const watch = resourceAttributes({ name: 'bob', groups: [] }, { verb: 'watch', apiVersion: 'v1', resource: 'pods' });
  const req = { requestURI: '/api/v1/pods?watch=true', userAgent: '', sourceIPs: [], received: new Date(0), auditID: 'w' };
  const a = auditor.begin(watch, req, true)!;
  a.responseStarted(200);
  a.complete();
  const b = auditor.begin(watch, req, true)!;
  b.complete();
  const stages = lines.map((l) => JSON.parse(l) as { stage: string; responseStatus?: unknown });
  assert.deepEqual(stages.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'RequestReceived', 'ResponseStarted', 'ResponseComplete']);
  assert.deepEqual(stages[5]!.responseStatus, { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 });
});

test('the log rotates past maxsize into <name>-<UTC time>.log and keeps maxbackup backups', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-'));
  try {
    const path = join(dir, 'logs', 'audit.log');
    let t = Date.parse('2025-03-04T05:06:07.089Z');
    const log = new RotatingLog(path, { maxSizeMB: 1, maxBackups: 2, maxAgeDays: 0 }, () => new Date(t += 1000));
    const line = 'x'.repeat(600 * 1024) + '\n';
    // Four rotations (at 08, 10, 12 and 14 seconds: the clock also ticks for each cleanup); the newest two are kept.
    for (let i = 0; i < 5; i++) log.write(line);
    log.close();
    assert.equal(backupTimestamp(new Date('2025-03-04T05:06:08.089Z')), '2025-03-04T05-06-08.089');
    assert.deepEqual(readdirSync(join(dir, 'logs')).sort(), ['audit-2025-03-04T05-06-12.089.log', 'audit-2025-03-04T05-06-14.089.log', 'audit.log']);
    assert.equal(statSync(path).size, line.length);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'logs')).mode & 0o777, 0o700);
    // maxage: a backup older than that many days goes at the next rotation.
    writeFileSync(join(dir, 'logs', 'audit-2020-01-01T00-00-00.000.log'), 'old\n');
    const aged = new RotatingLog(path, { maxSizeMB: 1, maxBackups: 0, maxAgeDays: 30 }, () => new Date(t += 1000));
    aged.write(line);
    aged.write(line);
    aged.close();
    assert.equal(existsSync(join(dir, 'logs', 'audit-2020-01-01T00-00-00.000.log')), false);
    assert.equal(readFileSync(path, 'utf8'), line);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
