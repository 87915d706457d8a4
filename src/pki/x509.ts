/**
 * The X.509 library, set up once: @peculiar/x509 resolves its services
 * through tsyringe (which needs the Reflect metadata API) and signs with
 * Node's WebCrypto. Import it lazily: loading it costs start-up time.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as lib from '@peculiar/x509';

lib.cryptoProvider.set(webcrypto as unknown as Crypto);

export { lib };
