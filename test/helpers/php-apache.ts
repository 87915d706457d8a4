/**
 * The HPA walkthrough's php-apache Deployment and Service (its php-apache.yaml), pinned to Linux
 * nodes as a mixed cluster needs: the image is Linux-only.
 */
import { readFileSync } from 'node:fs';

export const PHP_APACHE_MANIFEST = readFileSync(new URL('../../../test/e2e/fixtures/php-apache.yaml', import.meta.url), 'utf8');
