/** The Windows/Linux OS rules (src/os/windows-rules.ts), one test per rule, with upstream v1.32's paths and messages. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { errorBody, formatFieldErrors, type FieldError } from '../../src/apimachinery/field-errors.js';
import {
  isHostProcessContainer, isHostProcessPod, kubeletOSAdmission, osRuleErrors, runAsUserNameProblems, validateLinux, validateOS,
  validatePodOS, validateRunAsUserName, validateWindows, validateWindowsHostProcessPod,
  validateWindowsSecurityContextOptions, visitContainersWithPath, WINDOWS_FORBIDDEN_CONTAINER_FIELDS,
  WINDOWS_FORBIDDEN_POD_FIELDS,
} from '../../src/os/windows-rules.js';

const lines = (errs: FieldError[]) => errs.map((e) => `${e.field}: ${errorBody(e)}`);
const win = (extra: Record<string, unknown> = {}) => ({ os: { name: 'windows' }, containers: [{ name: 'iis', image: 'iis' }], ...extra });
const FORBIDDEN = 'Forbidden: cannot be set for a windows pod';

describe('validateOS', () => {
  test('an empty os.name is Required at spec.os.name, alone', () => {
    assert.deepEqual(lines(validateOS({ os: {} })), ['spec.os.name: Required value: cannot be empty']);
    assert.deepEqual(lines(validateOS({ os: { name: '' } })), ['spec.os.name: Required value: cannot be empty']);
  });
  test('any other name is NotSupported at spec.os (case-sensitive)', () => {
    assert.deepEqual(lines(validateOS({ os: { name: 'Windows' } })), ['spec.os: Unsupported value: "Windows": supported values: "linux", "windows"']);
    assert.deepEqual(lines(validateOS({ os: { name: 'darwin' } }, 'spec.template.spec')),
      ['spec.template.spec.os: Unsupported value: "darwin": supported values: "linux", "windows"']);
  });
  test('linux, windows and an absent os pass', () => {
    assert.deepEqual(validateOS({ os: { name: 'linux' } }), []);
    assert.deepEqual(validateOS({ os: { name: 'windows' } }), []);
    assert.deepEqual(validateOS({}), []);
  });
});

describe('validateLinux', () => {
  test('windowsOptions are forbidden at pod level and in init, regular and ephemeral containers, in that order', () => {
    const wo = { securityContext: { windowsOptions: { runAsUserName: 'ContainerUser' } } };
    const spec = {
      os: { name: 'linux' }, ...wo,
      containers: [{ name: 'a', ...wo }], initContainers: [{ name: 'i', ...wo }], ephemeralContainers: [{ name: 'e', ...wo }],
    };
    assert.deepEqual(lines(validateLinux(spec)), [
      'spec.securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      'spec.initContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      'spec.containers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
      'spec.ephemeralContainers[0].securityContext.windowsOptions: Forbidden: windows options cannot be set for a linux pod',
    ]);
  });
  test('Linux-only fields are fine on a linux pod', () => {
    assert.deepEqual(validateLinux({ os: { name: 'linux' }, hostPID: true, securityContext: { runAsUser: 0 }, containers: [{ securityContext: { privileged: true } }] }), []);
  });
});

describe('validateWindows: pod level', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['spec.securityContext.appArmorProfile', { securityContext: { appArmorProfile: { type: 'RuntimeDefault' } } }],
    ['spec.securityContext.seLinuxOptions', { securityContext: { seLinuxOptions: { level: 's0' } } }],
    ['spec.hostUsers', { hostUsers: false }],
    ['spec.hostPID', { hostPID: true }],
    ['spec.hostIPC', { hostIPC: true }],
    ['spec.securityContext.seccompProfile', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }],
    ['spec.securityContext.fsGroup', { securityContext: { fsGroup: 2000 } }],
    ['spec.securityContext.fsGroupChangePolicy', { securityContext: { fsGroupChangePolicy: 'Always' } }],
    ['spec.securityContext.sysctls', { securityContext: { sysctls: [{ name: 'net.ipv4.ip_forward', value: '1' }] } }],
    ['spec.shareProcessNamespace', { shareProcessNamespace: false }],
    ['spec.securityContext.runAsUser', { securityContext: { runAsUser: 1000 } }],
    ['spec.securityContext.runAsGroup', { securityContext: { runAsGroup: 3000 } }],
    ['spec.securityContext.supplementalGroups', { securityContext: { supplementalGroups: [] } }],
    ['spec.securityContext.supplementalGroupsPolicy', { securityContext: { supplementalGroupsPolicy: 'Strict' } }],
    ['spec.securityContext.seLinuxChangePolicy', { securityContext: { seLinuxChangePolicy: 'Recursive' } }],
  ];
  for (const [path, spec] of cases) {
    test(`${path} is forbidden`, () => assert.deepEqual(lines(validateWindows(win(spec))), [`${path}: ${FORBIDDEN}`]));
  }
  test('the 15 pod-level checks come in upstream order', () => {
    assert.deepEqual(WINDOWS_FORBIDDEN_POD_FIELDS.map((f) => f.path), cases.map(([p]) => p.slice('spec.'.length)));
    const all = Object.assign({}, ...cases.map(([, s]) => s), { securityContext: Object.assign({}, ...cases.map(([, s]) => s.securityContext ?? {})) });
    assert.deepEqual(lines(validateWindows(win(all))), cases.map(([p]) => `${p}: ${FORBIDDEN}`));
  });
  test('false host namespaces, empty sysctls and unset pointers are allowed; hostNetwork, runAsNonRoot and windowsOptions too', () => {
    assert.deepEqual(validateWindows(win({
      hostPID: false, hostIPC: false, hostNetwork: true,
      securityContext: { sysctls: [], runAsNonRoot: true, windowsOptions: { runAsUserName: 'ContainerUser' }, supplementalGroups: null },
    })), []);
  });
});

describe('validateWindows: container level', () => {
  const sc: Record<string, unknown> = {
    appArmorProfile: { type: 'RuntimeDefault' }, seLinuxOptions: { level: 's0' }, seccompProfile: { type: 'RuntimeDefault' },
    capabilities: {}, readOnlyRootFilesystem: false, privileged: false, allowPrivilegeEscalation: false, procMount: 'Default',
    runAsUser: 1000, runAsGroup: 3000,
  };
  for (const f of WINDOWS_FORBIDDEN_CONTAINER_FIELDS) {
    test(`securityContext.${f} is forbidden (even false or empty)`, () => {
      const errs = validateWindows(win({ containers: [{ name: 'c', securityContext: { [f]: sc[f] } }] }));
      assert.deepEqual(lines(errs), [`spec.containers[0].securityContext.${f}: ${FORBIDDEN}`]);
    });
  }
  test('the 10 checks in upstream order, after the pod-level ones, init before regular before ephemeral', () => {
    assert.deepEqual([...WINDOWS_FORBIDDEN_CONTAINER_FIELDS], Object.keys(sc));
    const errs = validateWindows(win({
      hostIPC: true,
      containers: [{ name: 'c', securityContext: { runAsGroup: 1 } }],
      initContainers: [{ name: 'i', securityContext: { runAsUser: 1, privileged: true } }],
      ephemeralContainers: [{ name: 'e', securityContext: { capabilities: { add: ['NET_ADMIN'] } } }],
    }));
    assert.deepEqual(lines(errs), [
      `spec.hostIPC: ${FORBIDDEN}`,
      `spec.initContainers[0].securityContext.privileged: ${FORBIDDEN}`,
      `spec.initContainers[0].securityContext.runAsUser: ${FORBIDDEN}`,
      `spec.containers[0].securityContext.runAsGroup: ${FORBIDDEN}`,
      `spec.ephemeralContainers[0].securityContext.capabilities: ${FORBIDDEN}`,
    ]);
  });
  test('runAsNonRoot and windowsOptions are allowed in containers', () => {
    assert.deepEqual(validateWindows(win({ containers: [{ name: 'c', securityContext: { runAsNonRoot: true, windowsOptions: { hostProcess: false } } }] })), []);
  });
});

describe('validatePodOS', () => {
  test('an OS error stops the linux/windows checks', () => {
    assert.deepEqual(lines(validatePodOS({ os: { name: 'Windows' }, hostPID: true })),
      ['spec.os: Unsupported value: "Windows": supported values: "linux", "windows"']);
  });
  test('dispatches to the Windows and Linux rules, with the template path', () => {
    assert.deepEqual(lines(validatePodOS({ os: { name: 'windows' }, hostPID: true }, 'spec.template.spec')), [`spec.template.spec.hostPID: ${FORBIDDEN}`]);
    assert.equal(validatePodOS({ os: { name: 'linux' }, securityContext: { windowsOptions: {} } }).length, 1);
    assert.deepEqual(validatePodOS({ hostPID: true }), []);
  });
});

describe('runAsUserName', () => {
  const check = (name: string, messages: string[]) => assert.deepEqual(runAsUserNameProblems(name), messages);
  test('empty', () => check('', ['runAsUserName cannot be an empty string']));
  test('control characters (and nothing else)', () => check('Container\tUser\\', ['runAsUserName cannot contain control characters']));
  test('more than one backslash', () => check('a\\b\\c', ['runAsUserName cannot contain more than one backslash']));
  test('domain of 256 bytes or more', () => {
    const d = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}.e`;
    assert.equal(d.length, 256);
    check(`${d}\\svc`, ["runAsUserName's Domain length must be under 256 characters"]);
  });
  test('domain neither NetBIOS nor DNS', () => {
    check('CONTOSO:LAB\\svc', ["runAsUserName's Domain doesn't match the NetBios nor the DNS format"]);
    check('\\user', ["runAsUserName's Domain doesn't match the NetBios nor the DNS format"]);
  });
  test('NetBIOS and DNS domains pass', () => {
    check('NT AUTHORITY\\SYSTEM', []);
    check('NT AUTHORITY\\NETWORK SERVICE', []);
    check('corp.contoso.com\\svc-web', []);
    check('ContainerAdministrator', []);
  });
  test('empty user', () => check('CONTOSO\\', ["runAsUserName's User cannot be empty"]));
  test('user longer than 104 bytes', () => check(`CONTOSO\\${'u'.repeat(105)}`, ["runAsUserName's User length must not be longer than 104 characters"]));
  test('user of only periods and spaces', () => check('CONTOSO\\. .', ["runAsUserName's User cannot contain only periods or spaces"]));
  test('user with a forbidden character', () => check('CONTOSO\\web@svc', [`runAsUserName's User cannot contain the following characters: "/\\:;|=,+*?<>@[]`]));
  test('checks after the split accumulate', () => {
    check('.bad:\\', ["runAsUserName's Domain doesn't match the NetBios nor the DNS format", "runAsUserName's User cannot be empty"]);
  });
  test('errors name the field and quote the value as Go does', () => {
    assert.equal(formatFieldErrors(validateRunAsUserName('CONTOSO\\', 'spec.securityContext.windowsOptions.runAsUserName')),
      'spec.securityContext.windowsOptions.runAsUserName: Invalid value: "CONTOSO\\\\": runAsUserName\'s User cannot be empty');
  });
});

describe('gMSA options', () => {
  const p = 'spec.securityContext.windowsOptions';
  test('gmsaCredentialSpec must not be empty', () => {
    assert.deepEqual(lines(validateWindowsSecurityContextOptions({ gmsaCredentialSpec: '' }, p)),
      [`${p}.gmsaCredentialSpec: Invalid value: "": gmsaCredentialSpec cannot be an empty string`]);
  });
  test('gmsaCredentialSpec at most 64 KiB', () => {
    assert.deepEqual(validateWindowsSecurityContextOptions({ gmsaCredentialSpec: 'x'.repeat(65536) }, p), []);
    assert.match(lines(validateWindowsSecurityContextOptions({ gmsaCredentialSpec: 'x'.repeat(65537) }, p))[0] ?? '', /gmsaCredentialSpec size must be under 64 KiB$/);
  });
  test('gmsaCredentialSpecName must be a DNS subdomain', () => {
    assert.deepEqual(validateWindowsSecurityContextOptions({ gmsaCredentialSpecName: 'webapp1-credspec' }, p), []);
    assert.match(lines(validateWindowsSecurityContextOptions({ gmsaCredentialSpecName: 'WebApp' }, p))[0] ?? '',
      /^spec.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "WebApp": a lowercase RFC 1123 subdomain/);
  });
  test('name, spec, user name errors in that order', () => {
    const errs = validateWindowsSecurityContextOptions({ runAsUserName: '', gmsaCredentialSpec: '', gmsaCredentialSpecName: 'X' }, p);
    assert.deepEqual(errs.map((e) => e.field), [`${p}.gmsaCredentialSpecName`, `${p}.gmsaCredentialSpec`, `${p}.runAsUserName`]);
  });
});

describe('HostProcess', () => {
  const hp = (v: boolean) => ({ securityContext: { windowsOptions: { hostProcess: v } } });
  test('pod and container values must agree when both are set', () => {
    // The container's own false wins, so no container counts as HostProcess: only the mismatch is reported.
    assert.deepEqual(lines(validateWindowsHostProcessPod({ hostNetwork: true, ...hp(true), containers: [{ name: 'a', ...hp(false) }] })), [
      'spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be identical if both are specified, was true',
    ]);
    assert.deepEqual(lines(validateWindowsHostProcessPod({ ...hp(false), containers: [{ name: 'a', ...hp(true) }] })), [
      'spec.containers[0].securityContext.windowsOptions.hostProcess: Invalid value: true: pod hostProcess value must be identical if both are specified, was false',
      'spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
    ]);
  });
  test('all containers or none', () => {
    assert.deepEqual(lines(validateWindowsHostProcessPod({ hostNetwork: true, containers: [{ name: 'a', ...hp(true) }], initContainers: [{ name: 'i' }] })),
      ['spec: Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers']);
  });
  test('hostNetwork must be true', () => {
    assert.deepEqual(lines(validateWindowsHostProcessPod({ containers: [{ name: 'a', ...hp(true) }] })),
      ['spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers']);
  });
  test('the cluster must allow privileged pods', () => {
    assert.deepEqual(lines(validateWindowsHostProcessPod({ hostNetwork: true, ...hp(true), containers: [{ name: 'a' }] }, 'spec', { allowPrivileged: false })),
      ['spec: Forbidden: hostProcess containers are disallowed by cluster policy']);
    assert.deepEqual(validateWindowsHostProcessPod({ hostNetwork: true, ...hp(true), containers: [{ name: 'a' }] }), []);
  });
  test('containers inherit the pod value', () => {
    const spec = { ...hp(true), containers: [{ name: 'a' }, { name: 'b', ...hp(true) }] };
    assert.ok(isHostProcessPod(spec));
    assert.ok(isHostProcessContainer(spec, spec.containers[0]!));
    assert.ok(!isHostProcessPod({ containers: [{ name: 'a', ...hp(false) }] }));
  });
});

describe('osRuleErrors (for linters)', () => {
  test('windowsOptions content, HostProcess, then the OS block, with the given path', () => {
    const spec = {
      os: { name: 'windows' }, hostIPC: true,
      containers: [{ name: 'a', securityContext: { windowsOptions: { hostProcess: true, runAsUserName: '' } } }],
    };
    assert.deepEqual(lines(osRuleErrors(spec, 'spec.template.spec')), [
      'spec.template.spec.containers[0].securityContext.windowsOptions.runAsUserName: Invalid value: "": runAsUserName cannot be an empty string',
      'spec.template.spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers',
      `spec.template.spec.hostIPC: ${FORBIDDEN}`,
    ]);
  });
});

describe('visitContainersWithPath and the kubelet', () => {
  test('visits init, regular, ephemeral with their paths', () => {
    const seen: string[] = [];
    visitContainersWithPath({ containers: [{ name: 'c' }], initContainers: [{ name: 'i' }], ephemeralContainers: [{ name: 'e' }] }, 'spec',
      (c, p) => { seen.push(`${p}=${c.name}`); });
    assert.deepEqual(seen, ['spec.initContainers[0]=i', 'spec.containers[0]=c', 'spec.ephemeralContainers[0]=e']);
  });
  test('kubelet OS admission: the pod label first, then spec.os', () => {
    assert.equal(kubeletOSAdmission({ spec: { os: { name: 'windows' } } }, 'windows'), undefined);
    assert.equal(kubeletOSAdmission({ spec: { os: { name: 'windows' } } }, 'linux')?.reason, 'PodOSNotSupported');
    assert.equal(kubeletOSAdmission({ metadata: { labels: { 'kubernetes.io/os': 'linux' } }, spec: {} }, 'windows')?.reason,
      'PodOSSelectorNodeLabelDoesNotMatch');
    assert.equal(kubeletOSAdmission({ spec: {} }, 'linux'), undefined);
  });
});
