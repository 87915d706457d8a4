/** The events a controller recorded about one object, as the store holds them. */
import type { Store } from '../../src/registry/store.js';
import { eventually } from './service-fixture.js';

interface StoredEvent { metadata: { name?: string }; involvedObject: { name?: string }; type?: string; reason?: string; message?: string }

/**
 * The object's events as `type reason message`, oldest first (their names end in the creation
 * time), once `done` holds of them: the recorder writes behind the controller, so a test that
 * saw the status change still waits for the events written beside it.
 */
export async function storedEventsWhen(store: Store, namespace: string, name: string, done: (events: string[]) => boolean): Promise<string[]> {
  return eventually(async () => {
    const events = ((await store.listAll('', 'events', namespace)) as unknown as StoredEvent[]).filter((e) => e.involvedObject.name === name)
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1)).map((e) => `${e.type} ${e.reason} ${e.message}`);
    return done(events) ? events : undefined;
  }, `the events of ${name}`);
}
