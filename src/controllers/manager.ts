/**
 * kube-controller-manager in the server process: every controller, started
 * only while this server holds the `kube-system/kube-controller-manager`
 * Lease (leaderElectAndRun with upstream's 15 s lease, 10 s renew deadline
 * and 2 s retry period, identity `<hostname>_<uuid>`), so that a second
 * winkube server against the same storage does not act twice. Upstream's
 * process exits when it loses the lease ("leaderelection lost"); here the
 * API server shares the process, so the controllers stop instead and the
 * server campaigns again. On a clean shutdown the lease is released so a
 * restarted server need not wait out the lease duration.
 */
import type { EventRecorder } from '../events/recorder.js';
import type { LBPool } from '../network/lb-pool.js';
import type { Store } from '../registry/store.js';
import { CronJobController } from './cronjob/cronjob-controller.js';
import { DaemonSetController } from './daemonset/daemonset-controller.js';
import { DeploymentController } from './deployment/controller.js';
import { DisruptionController } from './disruption.js';
import { EndpointsController } from './endpoints.js';
import { EndpointSliceController } from './endpointslice/controller.js';
import { EndpointSliceMirroringController } from './endpointslice/mirroring.js';
import { GarbageCollector } from './garbage-collector.js';
import { ControllerScope } from './informer.js';
import { JobController } from './job/job-controller.js';
import { componentElector, type LeaderElector } from './leader-election.js';
import { NamespaceController } from './namespace-content.js';
import { NodeLifecycleController, nodeLifecycleOptionsFromEnv } from './node-lifecycle/controller.js';
import { TaintEvictionController } from './node-lifecycle/taint-eviction.js';
import { PersistentVolumeController } from './persistentvolume/controller.js';
import { LocalProvisioner } from './persistentvolume/provisioner.js';
import { PodGCController } from './podgc.js';
import { ReplicaSetController } from './replicaset.js';
import { ResourceQuotaController } from './resource-quota.js';
import { ServiceLBController } from './service-lb.js';
import { StatefulSetController } from './statefulset/statefulset-controller.js';
import { TTLAfterFinishedController } from './ttl-after-finished.js';

export interface ControllerManagerOptions {
  store: Store;
  events: EventRecorder;
  log: (m: string) => void;
  /** The cluster CA, for the kube-root-ca.crt ConfigMap of every namespace. */
  caCert: string;
  /**
   * The workload, service and node controllers too (and the load balancer
   * pool for LoadBalancer Services); without, only the namespace, garbage
   * collector and resource quota controllers (`winkube up --api-only`).
   */
  workloads?: { lbPool: LBPool };
}

/** Starts every controller inside one scope; stopping the scope stops them all. */
export async function startControllers(o: ControllerManagerOptions): Promise<ControllerScope> {
  const scope = new ControllerScope();
  const { store, events, log } = o;
  await scope.collect(async () => {
    await new NamespaceController(store, o.caCert, log).start();
    await new GarbageCollector(store, log).start();
    await scope.add(new ResourceQuotaController(store, log)).start();
    if (!o.workloads) return;
    // Services and nodes: endpoints, endpoint slices (and mirrored ones), node lifecycle and taint eviction, disruption budgets, pod GC, load balancers.
    await new EndpointsController(store, log).start();
    await new EndpointSliceController(store, log).start();
    await new EndpointSliceMirroringController(store, events, log).start();
    await scope.add(new NodeLifecycleController(store, events, log, nodeLifecycleOptionsFromEnv())).start();
    await scope.add(new TaintEvictionController(store, events, log)).start();
    await scope.add(new DisruptionController(store, events, log)).start();
    await scope.add(new PodGCController(store, log)).start();
    await new ServiceLBController(store, events, o.workloads.lbPool, log).start();
    // Workload controllers: ReplicaSets and ReplicationControllers (one controller, as upstream), Deployments,
    // then Job, CronJob, TTL-after-finished, StatefulSet, DaemonSet.
    await new ReplicaSetController(store, events, log, 'ReplicaSet').start();
    await new ReplicaSetController(store, events, log, 'ReplicationController').start();
    await scope.add(new DeploymentController(store, events, log)).start();
    await scope.add(new JobController(store, events, { log })).start();
    await scope.add(new CronJobController(store, events, { log })).start();
    await scope.add(new TTLAfterFinishedController(store, { log })).start();
    await scope.add(new StatefulSetController(store, events, { log })).start();
    await scope.add(new DaemonSetController(store, events, { log })).start();
    // Volumes: the persistentvolume-binder (with pvc- and pv-protection), and winkube's node-local provisioner that the default StorageClass names.
    await scope.add(new PersistentVolumeController(store, events, log)).start();
    await scope.add(new LocalProvisioner(store, events, log)).start();
  });
  return scope;
}

export interface RunningControllerManager {
  readonly elector: LeaderElector;
  /** Stops campaigning, releases the lease and stops the controllers. */
  stop(): Promise<void>;
}

/**
 * Campaigns for the kube-controller-manager Lease and runs the controllers
 * while leading. Resolves after the first attempt (with the controllers
 * started when it won), so a lone server is ready with its controllers.
 */
export async function runControllerManager(o: ControllerManagerOptions, elect: typeof componentElector = componentElector): Promise<RunningControllerManager> {
  let scope: ControllerScope | undefined;
  // Leadership changes one at a time: a start still collecting its watches is never overlapped by a stop.
  let transitions: Promise<void> = Promise.resolve();
  const serially = (f: () => Promise<void>) => (transitions = transitions.then(f, f));
  const elector = elect(o.store, 'kube-controller-manager', {
    onStartedLeading: () => serially(async () => { scope = await startControllers(o); }),
    onStoppedLeading: () => serially(async () => { scope?.stop(); scope = undefined; }),
  }, o.events, o.log);
  await elector.start();
  return {
    elector,
    async stop() {
      await elector.stop(true);
      await transitions;
      scope?.stop();
    },
  };
}
