/** One schema version: its number, a name for the log, and the SQL that takes the schema there from the one before. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
