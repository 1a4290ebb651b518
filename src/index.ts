// payorch as a library: the typed client, the test-mode server and the contract's types.
export * from './lib/client/index.js';
export {
  startServer,
  migrateDatabase,
  openEmbedded,
  Snapshot,
  type ServerOptions,
  type RunningServer,
  type EmbeddedServer,
} from './lib/server/server.js';
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
