// `--data JSON|@file|-` for commands that accept a whole request body (`payorch api`, `ledger post`).
import { readFileSync } from 'node:fs';
import { CliError, EXIT } from './errors.js';

export function readJsonData(data: string): unknown {
  let text = data;
  if (data === '-') text = readFileSync(0, 'utf8');
  else if (data.startsWith('@')) {
    try {
      text = readFileSync(data.slice(1), 'utf8');
    } catch (err) {
      throw new CliError(`Cannot read ${data.slice(1)}: ${(err as Error).message}`, EXIT.USAGE);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`--data is not valid JSON: ${(err as Error).message}`, EXIT.USAGE);
  }
}
