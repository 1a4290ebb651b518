#!/usr/bin/env node
// Development entry: runs the TypeScript sources through tsx (npm i -D tsx first) — `npm run build` + bin/run.js is the supported path.
// CommonJS, as everything in bin/ (bin/package.json).
'use strict';
void import('@oclif/core').then(({ execute }) =>
  execute({ development: true, loadOptions: { root: require('node:path').join(__dirname, '..') } }),
);
