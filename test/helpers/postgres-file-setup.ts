/**
 * A setup file of the run on PostgreSQL (vitest.config.ts adds it with
 * PAYGATE_TEST_DATABASE=postgres), run as each test file starts: the file's first database is
 * copied from the run's template while the file's modules load, and the one made ahead that the
 * file did not use goes when the file ends.
 */
import { afterAll, inject } from 'vitest';
import { dropSpareDatabase, prepareTestDatabase } from './postgres-server.js';

prepareTestDatabase(inject('postgresTemplate'));
afterAll(() => dropSpareDatabase());
