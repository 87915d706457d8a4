/** --anonymous-auth as ApplyAuthorization leaves it: off whenever a mode is AlwaysAllow. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anonymousAuthAllowed } from '../../src/authorization/anonymous-auth.js';

test('anonymous auth is off with AlwaysAllow anywhere in the modes, on otherwise', () => {
  assert.equal(anonymousAuthAllowed(['AlwaysAllow']), false);
  assert.equal(anonymousAuthAllowed(['RBAC', 'AlwaysAllow']), false);
  assert.equal(anonymousAuthAllowed(['RBAC']), true);
  assert.equal(anonymousAuthAllowed(['AlwaysDeny']), true);
  assert.equal(anonymousAuthAllowed(['AlwaysDeny', 'RBAC']), true);
});
