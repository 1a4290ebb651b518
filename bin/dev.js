#!/usr/bin/env node
// Development entry: runs the TypeScript sources through tsx (npm i -D tsx first) — `npm run build` + bin/run.js is the supported path.
const { execute } = await import('@oclif/core');
await execute({ development: true, dir: import.meta.url });
