/** subPathExpr expansion and the subPath checks of the kubelet's makeMounts: their CreateContainerConfigError messages. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareMounts, preparedSubPath } from '../../src/node/kubelet/subpath-expr.js';

test('subPathExpr: expanded from the environment; empty or unknown variables, absolute paths and backsteps fail', () => {
  const m = { name: 'workdir1', mountPath: '/logscontainer', subPathExpr: '$(POD_NAME)' };
  assert.deepEqual(preparedSubPath(m, { POD_NAME: 'var-expansion-1' }), { subPath: 'var-expansion-1' });
  assert.deepEqual(preparedSubPath({ ...m, subPathExpr: 'logs/$(POD_NAME)/x' }, { POD_NAME: 'p' }), { subPath: 'logs/p/x' });
  assert.deepEqual(preparedSubPath(m, { POD_NAME: '..' }), { error: "unable to provision SubPath `..`: must not contain '..'" });
  assert.deepEqual(preparedSubPath(m, { POD_NAME: '/tmp' }), { error: 'error SubPath `/tmp` must not be an absolute path' });
  assert.deepEqual(preparedSubPath({ ...m, subPathExpr: '$(B)/$(A)' }, { A: '' }), { error: 'missing value for A, B' });
  assert.deepEqual(preparedSubPath({ name: 'v', mountPath: '/x', subPath: 'key' }, {}), { subPath: 'key' });
});

test('prepareMounts: subPathExpr becomes subPath; the first failing mount fails the container', () => {
  assert.deepEqual(prepareMounts([{ name: 'a', mountPath: '/a', subPathExpr: '$(N)' }, { name: 'a', mountPath: '/b' }], { N: 'n' }),
    { mounts: [{ name: 'a', mountPath: '/a', subPath: 'n' }, { name: 'a', mountPath: '/b' }] });
  assert.deepEqual(prepareMounts([{ name: 'a', mountPath: '/a', subPathExpr: '$(N)' }], { N: '/abs' }), { error: 'error SubPath `/abs` must not be an absolute path' });
});
