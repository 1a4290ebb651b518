// The SQL of a document table on SQLite, from its declaration's parts: the text a new migration is generated from
// once (store/tables.ts), and the count triggers of released migrations that tests rebuild old databases with.

/**
 * SQL for a document table: `seq` orders rows (newest = highest, keyset pagination), `id` is the public id,
 * `data` the JSON document; `columns` are extra columns, `indexes` the filter sets lists use (each gets an
 * index and an exact row count per account in `list_counts`, kept by Collection through Store.count, so that
 * a list's `total_count` costs the same with a thousand rows as with a million). `nullable`: filter columns
 * that may be NULL but are never filtered on NULL (the API's filters are strings) — their indexes are partial
 * and their NULLs are not counted, so a row without the value costs no index entry and no counter update.
 */
export function documentTable(
  table: string,
  columns: Record<string, string> = {},
  indexes: string[][] = [],
  nullable: string[] = [],
): string {
  const cols = Object.entries(columns)
    .map(([name, type]) => `  ${name} ${type},`)
    .join('\n');
  const idx = indexes.map((cs) => filterIndex(table, cs, nullable, true)).join('\n');
  const specs = [[], ...indexes].map((cs) => [...cs].sort());
  return `
CREATE TABLE ${table} (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
${cols}
  data TEXT NOT NULL
);
CREATE INDEX ${table}_account_seq ON ${table} (account_id, seq);
${idx}
${specs.map((cs) => `INSERT INTO count_specs (tbl, cols) VALUES ('${table}', '${cs.join(',')}');`).join('\n')}`;
}

/** The index a list filter on `cs` uses; partial when one of its columns is `nullable`. */
export function filterIndex(table: string, cs: string[], nullable: string[] = [], ifNotExists = false): string {
  const notNull = cs.filter((c) => nullable.includes(c));
  return `CREATE INDEX ${ifNotExists ? 'IF NOT EXISTS ' : ''}${table}_${cs.join('_')} ON ${table} (account_id, ${cs.join(', ')}, seq)${
    notNull.length ? ` WHERE ${notNull.map((c) => `${c} IS NOT NULL`).join(' AND ')}` : ''
  };`;
}

/**
 * The triggers that kept `list_counts` for a document table until migration 902 (Collection keeps the counts
 * since): the released migrations before it hold their text; tests rebuild databases of that time with it.
 */
export function countTriggers(table: string, indexes: string[][], nullable: string[] = []): string {
  const specs = [[], ...indexes].map((cs) => [...cs].sort());
  const key = (row: 'NEW' | 'OLD', cs: string[]) =>
    cs.length === 0 ? "''" : cs.map((c) => `COALESCE(CAST(${row}.${c} AS TEXT), char(0))`).join(' || char(31) || ');
  const counted = (row: 'NEW' | 'OLD', cs: string[]) =>
    cs.filter((c) => nullable.includes(c)).map((c) => `${row}.${c} IS NOT NULL`);
  const bump = (row: 'NEW' | 'OLD', cs: string[], delta: '+ 1' | '- 1', changedWhen = '') => {
    const when = [...(changedWhen ? [changedWhen] : []), ...counted(row, cs)].join(' AND ');
    const where = `tbl = '${table}' AND account_id = ${row}.account_id AND cols = '${cs.join(',')}' AND vals = ${key(row, cs)}`;
    const ins =
      delta === '+ 1'
        ? `  INSERT OR IGNORE INTO list_counts (tbl, account_id, cols, vals, n) SELECT '${table}', ${row}.account_id, '${cs.join(',')}', ${key(row, cs)}, 0${when ? ` WHERE ${when}` : ''};\n`
        : '';
    return `${ins}  UPDATE list_counts SET n = n ${delta} WHERE ${where}${when ? ` AND ${when}` : ''};`;
  };
  const changed = (cs: string[]) => (cs.length ? `(${key('OLD', cs)}) IS NOT (${key('NEW', cs)})` : '0');
  const watched = [...new Set(indexes.flat())];
  return `CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table} BEGIN
${specs.map((cs) => bump('NEW', cs, '+ 1')).join('\n')}
END;
CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table} BEGIN
${specs.map((cs) => bump('OLD', cs, '- 1')).join('\n')}
END;
${
  watched.length
    ? `CREATE TRIGGER ${table}_count_update AFTER UPDATE OF ${watched.join(', ')} ON ${table} BEGIN
${specs
  .filter((cs) => cs.length)
  .map((cs) => `${bump('OLD', cs, '- 1', changed(cs))}\n${bump('NEW', cs, '+ 1', changed(cs))}`)
  .join('\n')}
END;`
    : ''
}`;
}
