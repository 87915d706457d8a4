import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../src/selectors/labels.js';
import { parseFieldSelector } from '../../src/selectors/fields.js';

test('label selectors match set-based and equality requirements', () => {
  const s = parseLabelSelector('app in (web,api),tier!=db,!legacy,env');
  assert.equal(s.matches({ app: 'web', env: 'prod' }), true);
  assert.equal(s.matches({ app: 'web', env: 'prod', tier: 'db' }), false);
  assert.equal(s.matches({ app: 'web', env: 'prod', legacy: 'x' }), false);
  assert.equal(s.matches({ app: 'web' }), false);
  assert.equal(parseLabelSelector('a notin (x)').matches({}), true);
  assert.equal(parseLabelSelector('').matches({ any: 'thing' }), true);
});

test('label selector errors carry upstream wording', () => {
  assert.throws(() => parseLabelSelector('app=web server'), { message: "found 'server', expected: ',' or 'end of string'" });
  assert.throws(() => parseLabelSelector('environment in (production'), { message: "unable to parse requirement: found '', expected: ',' or ')'" });
});

test('field selectors: =, ==, != and upstream errors', () => {
  const f = parseFieldSelector('status.phase!=Failed,spec.nodeName==n1');
  const obj: Record<string, string> = { 'status.phase': 'Running', 'spec.nodeName': 'n1' };
  assert.equal(f.matches((k) => obj[k]), true);
  obj['status.phase'] = 'Failed';
  assert.equal(f.matches((k) => obj[k]), false);
  assert.throws(() => parseFieldSelector('status.phase'), { message: "invalid selector: 'status.phase'; can't understand 'status.phase'" });
});
