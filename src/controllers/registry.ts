/**
 * The controllers a winkube server runs, by kube-controller-manager's names
 * (cmd/kube-controller-manager/names, v1.32), in start order. Each is a
 * Controller: `run(ctx, signal)` builds it from the context, starts it and
 * stops it when the signal aborts. Each runs as the service account its
 * upstream start function asks the ClientBuilder for
 * (cmd/kube-controller-manager/app/*.go, `ClientOrDie("<name>")`; the
 * service controller's from the cloud controller manager); winkube's own
 * provisioner as a service account of its name.
 */
import { controllerServiceAccount } from '../client/identities.js';
import type { PemPair } from '../pki/certificates.js';
import { CSRApprovingController } from './certificates/approver.js';
import { CSRCleanerController } from './certificates/cleaner.js';
import { CSRSigningController } from './certificates/signer.js';
import { ClusterRoleAggregationController } from './clusterrole-aggregation.js';
import type { LBPool } from '../network/lb-pool.js';
import { CronJobController } from './cronjob/cronjob-controller.js';
import { DaemonSetController } from './daemonset/daemonset-controller.js';
import { DeploymentController } from './deployment/controller.js';
import { DisruptionController } from './disruption.js';
import { EndpointsController } from './endpoints.js';
import { EndpointSliceController } from './endpointslice/controller.js';
import { EndpointSliceMirroringController } from './endpointslice/mirroring.js';
import { GarbageCollector } from './garbage-collector.js';
import { JobController } from './job/job-controller.js';
import { NamespaceController } from './namespace-content.js';
import { NodeLifecycleController, nodeLifecycleOptionsFromEnv } from './node-lifecycle/controller.js';
import { TaintEvictionController } from './node-lifecycle/taint-eviction.js';
import { PersistentVolumeController } from './persistentvolume/controller.js';
import { LocalProvisioner } from './persistentvolume/provisioner.js';
import { PodGCController } from './podgc.js';
import { HorizontalPodAutoscalerController, type HPAApi } from './podautoscaler/controller.js';
import { hpaSettingsFromEnv } from './podautoscaler/settings.js';
import { ReplicaSetController } from './replicaset.js';
import { ResourceQuotaController } from './resource-quota.js';
import type { Controller, ControllerContext } from './runtime/controller-context.js';
import { ServiceLBController } from './service-lb.js';
import { StatefulSetController } from './statefulset/statefulset-controller.js';
import { TTLAfterFinishedController } from './ttl-after-finished.js';
import { VAP_STATUS_FIELD_MANAGER, ValidatingAdmissionPolicyStatusController } from './validatingadmissionpolicy-status.js';

/** What every controller class here is once built: started (informers synced), then stopped. */
interface Runnable {
  start(): Promise<void>;
  stop(): void;
}

/**
 * The context a controller runs with, as kube-controller-manager's
 * --use-service-account-credentials gives it: its writes, reads and events
 * act as the service account kube-system/<serviceAccount> (ClientBuilder.ClientOrDie
 * of that name, and an event broadcaster on that client), while the informers
 * stay the manager's, shared by all. The field manager is the manager's
 * (upstream's is the binary's user agent, the same for every controller)
 * unless the controller names its own for its writes.
 */
export function serviceAccountContext(ctx: ControllerContext, serviceAccount: string, fieldManager = ctx.client.fieldManager): ControllerContext {
  const user = controllerServiceAccount(serviceAccount);
  return { ...ctx, client: ctx.client.as(user, fieldManager), events: ctx.events.as(user) };
}

/** A controller acting as kube-system/<serviceAccount>, its writes naming `fieldManager` when given. */
function controller(name: string, serviceAccount: string, build: (ctx: ControllerContext) => Runnable, fieldManager?: string): Controller {
  return {
    name,
    async run(ctx, signal) {
      if (signal.aborted) return;
      const c = build(serviceAccountContext(ctx, serviceAccount, fieldManager));
      signal.addEventListener('abort', () => c.stop(), { once: true });
      await c.start();
    },
  };
}

/** winkube's own controller besides kube-controller-manager's: the node-local volume provisioner the default StorageClass names. */
export const LOCAL_PROVISIONER = 'winkube-local-provisioner';

export interface RegistryConfig {
  /** The cluster CA: its certificate for the kube-root-ca.crt ConfigMap of every namespace, its key for the CSR signer. */
  ca: PemPair;
  /**
   * The workload, service and node controllers too, with the addresses of
   * LoadBalancer Services; without (`winkube up --api-only`), only the
   * namespace, garbage collector, resource quota, ClusterRole aggregation, admission policy status and certificate controllers.
   */
  workloads?: { lbPool: LBPool; hpa?: HPAApi };
}

/**
 * Every controller, in start order. The namespace controller also keeps
 * each namespace's default ServiceAccount and kube-root-ca.crt ConfigMap
 * (upstream's serviceaccount- and root-ca-certificate-publisher-controller);
 * the persistentvolume-binder also does pvc- and pv-protection.
 */
export function controllerRegistry(config: RegistryConfig): Controller[] {
  const api = [
    controller('namespace-controller', 'namespace-controller', (ctx) => new NamespaceController(ctx, config.ca.cert)),
    controller('garbage-collector-controller', 'generic-garbage-collector', (ctx) => new GarbageCollector(ctx)),
    controller('resourcequota-controller', 'resourcequota-controller', (ctx) => new ResourceQuotaController(ctx)),
    controller('clusterrole-aggregation-controller', 'clusterrole-aggregation-controller', (ctx) => new ClusterRoleAggregationController(ctx)),
    controller('validatingadmissionpolicy-status-controller', 'validatingadmissionpolicy-status-controller',
      (ctx) => new ValidatingAdmissionPolicyStatusController(ctx), VAP_STATUS_FIELD_MANAGER),
    // Certificates: upstream's three controllers share the certificate-controller service account.
    controller('certificatesigningrequest-signing-controller', 'certificate-controller', (ctx) => new CSRSigningController(ctx, config.ca)),
    controller('certificatesigningrequest-approving-controller', 'certificate-controller', (ctx) => new CSRApprovingController(ctx)),
    controller('certificatesigningrequest-cleaner-controller', 'certificate-controller', (ctx) => new CSRCleanerController(ctx)),
  ];
  const workloads = config.workloads;
  if (!workloads) return api;
  return [
    ...api,
    // Services and nodes.
    controller('endpoints-controller', 'endpoint-controller', (ctx) => new EndpointsController(ctx)),
    controller('endpointslice-controller', 'endpointslice-controller', (ctx) => new EndpointSliceController(ctx)),
    controller('endpointslice-mirroring-controller', 'endpointslicemirroring-controller', (ctx) => new EndpointSliceMirroringController(ctx)),
    controller('node-lifecycle-controller', 'node-controller', (ctx) => new NodeLifecycleController(ctx, nodeLifecycleOptionsFromEnv())),
    controller('taint-eviction-controller', 'node-controller', (ctx) => new TaintEvictionController(ctx)),
    controller('disruption-controller', 'disruption-controller', (ctx) => new DisruptionController(ctx), 'disruption-controller'),
    controller('pod-garbage-collector-controller', 'pod-garbage-collector', (ctx) => new PodGCController(ctx)),
    controller('service-lb-controller', 'service-controller', (ctx) => new ServiceLBController(ctx, workloads.lbPool)),
    // Workloads.
    controller('replicaset-controller', 'replicaset-controller', (ctx) => new ReplicaSetController(ctx, 'ReplicaSet')),
    controller('replicationcontroller-controller', 'replication-controller', (ctx) => new ReplicaSetController(ctx, 'ReplicationController')),
    controller('deployment-controller', 'deployment-controller', (ctx) => new DeploymentController(ctx)),
    controller('job-controller', 'job-controller', (ctx) => new JobController(ctx), 'job-controller'),
    controller('cronjob-controller', 'cronjob-controller', (ctx) => new CronJobController(ctx), 'cronjob-controller'),
    controller('ttl-after-finished-controller', 'ttl-after-finished-controller', (ctx) => new TTLAfterFinishedController(ctx)),
    controller('statefulset-controller', 'statefulset-controller', (ctx) => new StatefulSetController(ctx), 'statefulset-controller'),
    controller('daemonset-controller', 'daemon-set-controller', (ctx) => new DaemonSetController(ctx), 'daemonset-controller'),
    ...(workloads.hpa ? [controller('horizontal-pod-autoscaler-controller', 'horizontal-pod-autoscaler',
      (ctx) => new HorizontalPodAutoscalerController(ctx, workloads.hpa!, hpaSettingsFromEnv()))] : []),
    // Volumes.
    controller('persistentvolume-binder-controller', 'persistent-volume-binder', (ctx) => new PersistentVolumeController(ctx)),
    controller(LOCAL_PROVISIONER, LOCAL_PROVISIONER, (ctx) => new LocalProvisioner(ctx)),
  ];
}
