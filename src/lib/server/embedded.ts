// The server in this process, with no socket: `openEmbedded` (the library's, every route) and `openInProcess` (the
// CLI's default with no key configured and no server running: routes registered as the command's requests ask for
// them), and the transport that reaches them. scripts/bundle-embedded.js bundles this module and all it loads into
// one CommonJS file, dist/vendor/embedded.cjs, which src/lib/cli/embedded.ts loads in its place (Node 20 keeps no
// code cache for ES modules; one cached file loads faster).
import type { FastifyInstance } from 'fastify';
import { API_PREFIX } from '../contract/common.js';
import { DEFAULT_BASE_URL } from '../contract/prefix.js';
import { appUrls, mayMatch } from './app.js';
import { defaultDataDir } from './datadir.js';
import type { Services } from './domain/services.js';
import { runStepsNow } from './store/steps.js';
import { appOf, assemble, openParts } from './server.js';
import { Started } from './started.js';

export { InProcessTransport } from '../client/inprocess.js';

export interface EmbeddedServer {
  app: FastifyInstance;
  apiKey: string;
  dataDir: string;
  close(): Promise<void>;
}

/** The server in this process, with no socket: the CLI's zero-configuration default. */
export async function openEmbedded(dataDir: string = defaultDataDir()): Promise<EmbeddedServer> {
  const started = new Started();
  try {
    const { opened, services, app } = await assemble(started, dataDir, false, undefined, () => DEFAULT_BASE_URL);
    started.add(() => app.close());
    await app.ready();
    await runStepsNow(services.store, services.scheduler.catchUp());
    return { app, apiKey: opened.credentials.api_key, dataDir, close: () => started.stopAll() };
  } catch (err) {
    await started.stopAll();
    throw err;
  }
}

export interface InProcessServer {
  apiKey: string;
  dataDir: string;
  /**
   * The app to send `path` (…/functions/v1 left out, query allowed) to: built with the routes that may answer the
   * paths asked for so far, and built again, with more, when a path needs a route it lacks. Every other answer
   * (404, 405, errors) is the full app's.
   */
  appFor(path: string): Promise<FastifyInstance>;
  /**
   * The webhook deliveries waiting for a server to send them: the deliveries this process's events call for are
   * recorded first (the scan a listening server's dispatcher makes), then every enabled endpoint's pending ones are
   * counted. This process sends none (it lives for one command): the CLI hands them to the background server.
   */
  pendingDeliveries(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The server in this process for a command (the CLI's default with no key and no server running): what
 * `openEmbedded` opens — the data directory, migrations, due work caught up — but routes are registered as the
 * command's requests need them. A command sends one or two paths, and registering every route took longer than
 * its request (bench/README.md, "Faster without a server").
 */
export async function openInProcess(dataDir: string = defaultDataDir()): Promise<InProcessServer> {
  const started = new Started();
  try {
    const parts = await openParts(started, dataDir, false, undefined, () => DEFAULT_BASE_URL);
    await runStepsNow(parts.services.store, parts.services.scheduler.catchUp());
    const registered = new Set<string>();
    let app: FastifyInstance | undefined;
    let building = Promise.resolve();
    started.add(() => app?.close());
    const appFor = async (path: string): Promise<FastifyInstance> => {
      const url = API_PREFIX + path;
      const needed = appUrls().filter((u) => !registered.has(u) && mayMatch(u, url));
      if (app && needed.length === 0) return app;
      for (const u of needed) registered.add(u);
      const next = await appOf(parts, () => DEFAULT_BASE_URL, { only: (u) => registered.has(u) });
      await next.ready();
      const previous = app;
      app = next;
      await previous?.close();
      return next;
    };
    return {
      apiKey: parts.opened.credentials.api_key,
      dataDir,
      // One at a time: two requests that need new routes build one app each, in turn, not two apps at once.
      appFor: (path) => {
        const result = building.then(() => appFor(path));
        building = result.then(
          () => undefined,
          () => undefined,
        );
        return result;
      },
      pendingDeliveries: () => pendingDeliveries(parts.services),
      close: () => started.stopAll(),
    };
  } catch (err) {
    await started.stopAll();
    throw err;
  }
}

/** InProcessServer.pendingDeliveries: no endpoint, one read; else the dispatcher's scan, then a count per endpoint. */
async function pendingDeliveries({ store, webhooks }: Services): Promise<number> {
  const deliveries = webhooks.deliveries;
  if ((await store.read(() => deliveries.enabledEndpoints())).length === 0) return 0;
  for (let more = true; more;) ({ more } = await store.alone(() => deliveries.scan()));
  return store.read(async () => {
    let n = 0;
    for (const { accountId, endpoint } of await deliveries.enabledEndpoints())
      n += await deliveries.deliveries.total(accountId, { webhook_endpoint: endpoint.id, status: 'pending' });
    return n;
  });
}
