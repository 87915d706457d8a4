/**
 * Which image programs the model knows as servers: an image reference and
 * the container's command and args (after $(VAR) expansion) to the
 * application that runs, or undefined when the container runs something
 * else (a shell, sleep, a program the model cannot know), which the shell
 * model interprets.
 *
 * Kubernetes' `command` replaces the image's ENTRYPOINT and `args` its CMD
 * (the image's CMD when neither is set), so whether an entrypoint script
 * runs, and what it execs, follows from which of the two is given.
 */
import { parseImageReference } from '../../os/images.js';
import type { Application } from './app-context.js';
import { agnhost, parseAgnhost, parseAgnhostFlags } from './agnhost.js';
import { agnhostLiveness } from './agnhost-liveness.js';
import { hpaExample } from './hpa-example.js';
import { httpd } from './httpd.js';
import { iis } from './iis.js';
import { nginx } from './nginx.js';
import { parseConsumerFlags, resourceConsumer } from './resource-consumer.js';
import { testWebserver, testWebserverPort } from './agnhost-test-webserver.js';
import { UPDATE_DEMO_FILES } from './update-demo-images.js';
import { etcdMember } from './wardle/etcd-member.js';
import { sampleAPIServer } from './wardle/sample-apiserver.js';

export interface ContainerCommand {
  image: string;
  command: readonly string[];
  args: readonly string[];
}

const base = (p: string | undefined) => (p ?? '').replace(/^.*[\\/]/, '');

export function applicationFor(c: ContainerCommand): Application | undefined {
  const ref = parseImageReference(c.image);
  if (!ref) return undefined;
  // k8s.gcr.io is the same registry's former name (it serves registry.k8s.io's images), as test suites before 1.25 spell it.
  switch (ref.name.replace(/^k8s\.gcr\.io\//, 'registry.k8s.io/')) {
    case 'docker.io/library/nginx': return nginxApp(ref.tag, c);
    case 'registry.k8s.io/e2e-test-images/agnhost': return agnhostApp(c);
    case 'docker.io/library/httpd': case 'registry.k8s.io/e2e-test-images/httpd': return httpdApp(ref.tag, c);
    case 'mcr.microsoft.com/windows/servercore/iis': return iisApp(c);
    case 'registry.k8s.io/hpa-example': return c.command.length || c.args.length ? undefined : (ctx) => hpaExample(ctx);
    case 'registry.k8s.io/e2e-test-images/resource-consumer': return resourceConsumerApp(c);
    case 'registry.k8s.io/e2e-test-images/nautilus': return updateDemoApp(UPDATE_DEMO_FILES.nautilus!, c);
    case 'registry.k8s.io/e2e-test-images/kitten': return updateDemoApp(UPDATE_DEMO_FILES.kitten!, c);
    case 'registry.k8s.io/etcd': return etcdApp(c);
    case 'registry.k8s.io/e2e-test-images/sample-apiserver': return sampleAPIServerApp(c);
    default: return undefined;
  }
}

/** ENTRYPOINT ["/docker-entrypoint.sh"], CMD ["nginx", "-g", "daemon off;"]. */
function nginxApp(tag: string, c: ContainerCommand): Application | undefined {
  const isNginx = (p: string | undefined) => p === 'nginx' || p === 'nginx-debug';
  if (!c.command.length) {
    return c.args.length === 0 || isNginx(base(c.args[0])) ? (ctx) => nginx(ctx, { tag, entrypoint: true }) : undefined;
  }
  if (base(c.command[0]) === 'docker-entrypoint.sh') {
    const rest = [...c.command.slice(1), ...c.args];
    return isNginx(base(rest[0])) ? (ctx) => nginx(ctx, { tag, entrypoint: true }) : undefined;
  }
  return isNginx(base(c.command[0])) ? (ctx) => nginx(ctx, { tag, entrypoint: false }) : undefined;
}

/**
 * ENTRYPOINT ["/agnhost"], CMD ["pause"]: args are the subcommand; a command naming agnhost (or /agnhost-2, the
 * image's copy of it) runs it with the rest.
 */
function agnhostApp(c: ContainerCommand): Application | undefined {
  const named = c.command.length > 0 && ['agnhost', 'agnhost-2'].includes(base(c.command[0]));
  // CMD ["pause"]: what runs when neither command nor args is given.
  const argv = !c.command.length ? (c.args.length ? c.args : ['pause']) : named ? [...c.command.slice(1), ...c.args] : undefined;
  if (argv?.[0] === 'liveness') return (ctx) => agnhostLiveness(ctx);
  if (!argv || !parseAgnhost(argv)) return undefined;
  const argv0 = named ? c.command[0]! : '/agnhost';
  return (ctx) => agnhost(ctx, argv, argv0)!;
}

/** CMD ["httpd-foreground"] (no ENTRYPOINT): the script, or `httpd -DFOREGROUND` itself. */
function httpdApp(tag: string, c: ContainerCommand): Application | undefined {
  const argv = c.command.length ? [...c.command, ...c.args] : c.args;
  const prog = base(argv[0]);
  return argv.length === 0 || prog === 'httpd-foreground' || prog === 'httpd' ? (ctx) => httpd(ctx, tag) : undefined;
}

/** ENTRYPOINT ["C:\\ServiceMonitor.exe", "w3svc"]. */
function iisApp(c: ContainerCommand): Application | undefined {
  if (!c.command.length) return (ctx) => iis(ctx);
  return base(c.command[0]).toLowerCase() === 'servicemonitor.exe' ? (ctx) => iis(ctx) : undefined;
}

/** ENTRYPOINT ["/consumer"] (Windows: ["/consumer.exe"]): args are its flags; a command naming it runs it with the rest. */
function resourceConsumerApp(c: ContainerCommand): Application | undefined {
  const argv = !c.command.length ? c.args : /^consumer(\.exe)?$/i.test(base(c.command[0])) ? [...c.command.slice(1), ...c.args] : undefined;
  const flags = argv ? parseConsumerFlags(argv) : undefined;
  return flags ? (ctx) => resourceConsumer(ctx, flags.port) : undefined;
}

/** agnhost's ENTRYPOINT with CMD ["test-webserver"], serving the image's own files; other subcommands are not modelled on it. */
function updateDemoApp(files: ReadonlyMap<string, string>, c: ContainerCommand): Application | undefined {
  const named = c.command.length > 0 && base(c.command[0]) === 'agnhost';
  const argv = !c.command.length ? (c.args.length ? c.args : ['test-webserver']) : named ? [...c.command.slice(1), ...c.args] : undefined;
  const parsed = argv?.[0] === 'test-webserver' ? parseAgnhostFlags(argv.slice(1)) : undefined;
  return parsed ? (ctx) => testWebserver(ctx, testWebserverPort(parsed), files) : undefined;
}

/** The etcd image has no ENTRYPOINT: the command names /usr/local/bin/etcd (or etcd on the PATH). */
function etcdApp(c: ContainerCommand): Application | undefined {
  const argv = c.command.length ? [...c.command, ...c.args] : c.args;
  return base(argv[0]) === 'etcd' ? (ctx) => etcdMember(ctx, argv.slice(1)) : undefined;
}

/** ENTRYPOINT ["/sample-apiserver"]: args are its flags; a command naming it runs it with the rest. */
function sampleAPIServerApp(c: ContainerCommand): Application | undefined {
  const argv = !c.command.length ? c.args : /^(kube-)?sample-apiserver$/.test(base(c.command[0])) ? [...c.command.slice(1), ...c.args] : undefined;
  return argv ? (ctx) => sampleAPIServer(ctx, argv) : undefined;
}
