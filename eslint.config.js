// ESLint flat config: typescript-eslint's type-checked recommended rules over every TypeScript file tsconfig.json builds.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', '.winkube/**', '**/*.json'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test tracks every test()/describe() it is handed and awaits them itself; subtests (t.test) are still checked.
          allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // Objects are still mostly `any` (decoded JSON, Kubernetes objects); these report every use of one
      // (thousands of sites) and go back on as the object types land. no-explicit-any above counts the sources.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      // A leading underscore marks a binding kept on purpose (an omitted key in a rest destructuring, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true,
      }],
      // An await-less async function here implements a Promise-returning interface (storage, admission, test fakes):
      // `async` turns its throws into rejections, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // Decoded JSON and PowerShell values are stringified on purpose as Go and PowerShell print them;
      // TypeScript types them {} or wide unions. A warning keeps the sites visible.
      '@typescript-eslint/no-base-to-string': 'warn',
      // A destructuring that reassigns one of its names stays one `let`; a `let` a closure reads before it is set stays too.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      // A warning until noUncheckedIndexedAccess is on: without the flag, every `xs[i]!` that the flag needs reads as unnecessary.
      '@typescript-eslint/no-unnecessary-type-assertion': 'warn',
    },
  },
  {
    files: ['test/**/*.ts'],
    // Tests match kubectl's aligned tables, YAML indentation and Windows tool output space for space.
    rules: { 'no-regex-spaces': 'off' },
  },
  {
    files: ['src/node/shell/posix.ts'],
    // Every built-in is a generator of output steps, as commands are; the ones that only return or throw have no yield.
    rules: { 'require-yield': 'off' },
  },
);
