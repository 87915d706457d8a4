/** Mutating- and ValidatingWebhookConfigurations: printMutatingWebhook, printValidatingWebhook (NAME WEBHOOKS AGE). */
import type { Printer } from '../types.js';
import { ageColumn, column, nameColumn } from './columns.js';
import { ageOf, nameOf } from './cells.js';

export const webhookConfigurationPrinter: Printer = {
  columns: [nameColumn, column('Webhooks', 'integer', 'Webhooks indicates the number of webhooks registered in this configuration'), ageColumn],
  cells(obj: { webhooks?: unknown }, now: number): unknown[] {
    return [nameOf(obj), Array.isArray(obj.webhooks) ? obj.webhooks.length : 0, ageOf(obj, now)];
  },
};
