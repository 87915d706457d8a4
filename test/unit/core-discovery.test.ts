/** The core ResourceDefs carry exactly upstream's discovery facts (golden /api/v1). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { coreResources } from '../../src/registry/core/index.js';
import { join } from 'node:path';
import { GOLDEN_DIR } from '../helpers/golden.js';

const DOC = process.env.GOLDEN_DISCOVERY ?? join(GOLDEN_DIR, 'discovery', 'api_v1.json');

test('core resources match /api/v1 discovery', { skip: !existsSync(DOC) && 'no golden discovery' }, () => {
  const doc = JSON.parse(readFileSync(DOC, 'utf8'));
  const expected = doc.resources as any[];
  const got: any[] = [];
  for (const d of coreResources) {
    const r: any = { name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind,
      verbs: d.verbs ?? ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] };
    if (d.shortNames) r.shortNames = d.shortNames;
    if (d.categories) r.categories = d.categories;
    if (d.storageVersionHash) r.storageVersionHash = d.storageVersionHash;
    got.push(r);
    for (const s of d.subresources ?? []) {
      const sr: any = { name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced };
      if (s.group !== undefined) sr.group = s.group;
      if (s.version !== undefined) sr.version = s.version;
      sr.kind = s.kind;
      sr.verbs = s.verbs;
      got.push(sr);
    }
  }
  const byName = (a: any, b: any) => (a.name < b.name ? -1 : 1);
  assert.deepEqual(got.sort(byName), [...expected].sort(byName));
});

test('every core resource is stored under /core/<resource>', () => {
  for (const d of coreResources) assert.equal(d.storagePrefix, `/core/${d.resource}`);
});
