/**
 * vitest's global setup of a run on PostgreSQL (vitest.config.ts adds it with
 * PAYGATE_TEST_DATABASE=postgres). Before any test file: drops the test databases that crashed
 * runs left behind, and migrates one template database; every test database is then a copy of it
 * (`create database … template …`, helpers/database.ts), a fraction of the time a migration of
 * each takes. At the end of the run the template goes, and so does any database of a test process
 * that was killed before it could drop its own.
 */
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { admin, dropLeftoverDatabases, postgresUrl, testDatabaseName } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated database that test databases are copied from. */
    postgresTemplate: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dropped = await dropLeftoverDatabases();
  if (dropped.length > 0) console.log(`dropped ${dropped.length} test database(s) left by earlier runs`);
  const template = testDatabaseName('template_');
  await admin((c) => c.query(`create database "${template}"`));
  const drop = () => admin((c) => c.query(`drop database if exists "${template}" with (force)`));
  try {
    const database = openDatabase(postgresUrl(template));
    try {
      await migrateToLatest(database.db);
    } finally {
      // A template must have no connections while it is copied.
      await database.close();
    }
  } catch (e) {
    await drop();
    throw e;
  }
  project.provide('postgresTemplate', template);
  return async () => {
    await drop();
    await dropLeftoverDatabases();
  };
}
