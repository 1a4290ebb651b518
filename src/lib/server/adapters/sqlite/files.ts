// The files SQLite keeps beside a database file in WAL mode: the write-ahead log and its shared-memory index. They
// come and go as connections open and close, and belong to that database (never to one renamed into its place).
export const sqliteCompanions = (dbPath: string): string[] => [`${dbPath}-wal`, `${dbPath}-shm`];
