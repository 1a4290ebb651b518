// The in-process way in (the CLI's default with no key configured and no server running): the server in this
// process (openInProcess: routes registered as the command's requests ask for them) and the transport that reaches
// it without a socket. scripts/bundle-embedded.js bundles this module
// and all it loads into one CommonJS file, dist/vendor/embedded.cjs, which src/lib/cli/embedded.ts loads in its
// place (Node 20 keeps no code cache for ES modules; one cached file loads in a fraction of the time).
export { openInProcess, type InProcessServer } from './server.js';
export { InProcessTransport } from '../client/inprocess.js';
