// Shared pieces of the `payorch server …` commands.
import { request } from 'node:http';
import { Flags } from '@oclif/core';

export const dataDirFlag = Flags.string({ description: 'Data directory (default: $PAYORCH_HOME/server, else ~/.local/share/payorch)' });

/** GET {baseUrl}/health over node:http (no undici needed for one probe). */
export function probeHealth(baseUrl: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}/health`, { method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => {
      req.destroy();
      resolve(false);
    });
    req.end();
  });
}
