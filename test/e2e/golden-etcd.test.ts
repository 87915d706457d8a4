/** The golden replay (golden.test.ts) with the cluster's state in a real etcd member (`--storage etcd`). */
process.env.WINKUBE_TEST_STORAGE = 'etcd';
await import('./golden.test.js');
