// payorch as a library: the typed client, the test-mode server and the contract's types.
export * from './lib/client/index.js';
export { startServer, type ServerOptions, type RunningServer } from './lib/server/listening.js';
export { migrateDatabase } from './lib/server/shared-database.js';
export { openEmbedded, type EmbeddedServer } from './lib/server/embedded.js';
export { Snapshot } from './lib/server/restore.js';
export type * from './lib/contract/index.js';
export {
  verifyWebhook,
  WebhookSignatureError,
  type WebhookSignatureErrorCode,
  type VerifyOptions,
} from './lib/webhooks/verify.js';
export {
  runFixtures,
  FixtureError,
  FixtureStepError,
  FixtureEditError,
  parseEdits,
  readFixtureFile,
  type ParamEdit,
  type NamedFixture,
  type FixtureInput,
  type FixtureFile,
  type FixtureStep,
  type FixtureRun,
  type FixtureStepResult,
  type RunFixturesOptions,
} from './lib/fixtures/run.js';
export { builtinFixture, builtinFixtureNames } from './lib/fixtures/builtin.js';
export { SnapshotError, type SnapshotErrorCode } from './lib/server/store/snapshot-rules.js';
export type { SnapshotInfo } from './lib/server/snapshots.js';
