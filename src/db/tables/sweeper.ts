/** Row types of the sweeper feature's own tables (its migration), joined into DB in ../schema.ts. */

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SweeperTables {}
