/**
 * The shared informer over a client whose watches end: a watch the server
 * closes is resumed from the newest version seen; one it ends as expired
 * (410) is replaced by a new list whose differences reach the handlers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from '../../src/apimachinery/errors.js';
import type { KObject } from '../../src/apimachinery/object.js';
import { FakeClock } from '../../src/apimachinery/clock.js';
import { SharedInformer } from '../../src/client/shared-informer.js';
import type { ObjectList, ResourceClient, Watch, WatchOptions, WatchSink } from '../../src/client/types.js';

const cm = (name: string, rv: number): KObject => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(rv) } });

/** A resource whose list answers `lists` in turn and whose watches the test drives. */
function scripted(lists: ObjectList<KObject>[]) {
  const watches: { from: string; sink: WatchSink<KObject>; end: (e?: Error) => void }[] = [];
  let listed = 0;
  const resource = {
    ref: { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true },
    list: async () => {
      const l = lists[Math.min(listed, lists.length - 1)];
      listed++;
      return l!;
    },
    watch: async (_ns: string, opts: WatchOptions, sink: WatchSink<KObject>): Promise<Watch> => {
      let end!: (e?: Error) => void;
      const done = new Promise<void>((ok, no) => { end = (e) => (e ? no(e) : ok()); });
      watches.push({ from: opts.resourceVersion, sink, end });
      return { stop: () => end(), done };
    },
  } as unknown as ResourceClient<KObject>;
  return { resource, watches, listCount: () => listed };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a watch the server closes is started again from the newest version the informer saw', async () => {
  const s = scripted([{ items: [cm('a', 5)], resourceVersion: '5' }]);
  const informer = new SharedInformer(s.resource, new FakeClock());
  await informer.start();
  await settle();
  assert.equal(s.watches[0]?.from, '5');
  s.watches[0]!.sink('ADDED', cm('b', 7));
  s.watches[0]!.end();
  await settle();
  assert.equal(s.watches[1]?.from, '7');
  assert.equal(s.listCount(), 1);
  informer.stop();
});

test('an expired watch is replaced by a new list: what went away is DELETED, what changed MODIFIED', async () => {
  const s = scripted([
    { items: [cm('a', 5), cm('b', 6)], resourceVersion: '6' },
    { items: [cm('b', 9), cm('c', 10)], resourceVersion: '12' },
  ]);
  const informer = new SharedInformer(s.resource, new FakeClock());
  const seen: string[] = [];
  informer.onEvent((type, obj) => seen.push(`${type} ${obj.metadata.name}`));
  await informer.start();
  await settle();
  s.watches[0]!.end(errors.expired('too old resource version: 6 (8)'));
  await settle();
  await settle();
  assert.deepEqual(seen, ['ADDED a', 'ADDED b', 'MODIFIED b', 'ADDED c', 'DELETED a']);
  assert.deepEqual(informer.cache.list('ns').map((o) => o.metadata.name).sort(), ['b', 'c']);
  assert.equal(s.watches[1]?.from, '12');
  informer.stop();
});

test('any other watch failure waits a second on the clock before watching again', async () => {
  const s = scripted([{ items: [], resourceVersion: '3' }]);
  const clock = new FakeClock();
  const informer = new SharedInformer(s.resource, clock);
  await informer.start();
  await settle();
  s.watches[0]!.end(new Error('connection reset'));
  await settle();
  assert.equal(s.watches.length, 1);
  clock.step(999);
  await settle();
  assert.equal(s.watches.length, 1);
  clock.step(1);
  await settle();
  assert.equal(s.watches.length, 2);
  informer.stop();
});
