/**
 * Every file of the shared corpus (real-world manifests: rendered charts,
 * sig-windows and upstream Windows examples, CRD bundles; ../shared/corpus)
 * through the linter against the default cluster: nothing throws, and the
 * findings are exactly those of test/fixtures/lint/corpus-expected.txt,
 * each of which was reviewed (the file's header says why they are right).
 * A new corpus file, or a rule change, shows up here as a difference to review.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS_DIR } from '../helpers/golden.js';
import { readInputs } from '../../src/lint/read-inputs.js';
import { parseManifests, type ParseProblem } from '../../src/lint/parse-manifests.js';
import { lint } from '../../src/lint/engine.js';
import { describePools } from '../../src/lint/cluster-description.js';
import type { Manifest } from '../../src/lint/types.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const EXPECTED = join(ROOT, 'test', 'fixtures', 'lint', 'corpus-expected.txt');

test('the corpus lints without a crash, and every finding is a reviewed one', () => {
  const inputs = readInputs([CORPUS_DIR], () => '');
  assert.ok(inputs.length > 100, `corpus at ${CORPUS_DIR}`);
  const manifests: Manifest[] = [];
  const problems: ParseProblem[] = [];
  for (const i of inputs) {
    const p = parseManifests(i.text, relative(CORPUS_DIR, i.file));
    manifests.push(...p.manifests);
    problems.push(...p.problems);
  }
  const findings = lint(manifests, problems, describePools());
  const got = findings.map((f) => `${f.source.file}:${f.source.line} ${f.rule} ${f.severity} ${f.object.kind} ${f.object.namespace ? `${f.object.namespace}/` : ''}${f.object.name} ${f.path}`);
  const expected = readFileSync(EXPECTED, 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  assert.deepEqual(got, expected);
});
