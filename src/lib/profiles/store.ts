// Profiles: named API keys and base URLs, stored with `conf` in `$PAYORCH_HOME` (else conf's default
// config directory), file mode 0600. Reading goes straight to the JSON file so that every API command does
// not pay conf's import cost (~90 ms); writing goes through conf (atomic writes, schema, file mode).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';

export interface Profile {
  api_key: string;
  base_url?: string;
}

export interface ProfileData {
  active?: string;
  profiles: Record<string, Profile>;
}

export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PAYORCH_HOME || envPaths('payorch', { suffix: 'nodejs' }).config;
}

export const configPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'config.json');

/** The stored profiles (an empty set when there is no file yet). */
export function readProfiles(env: NodeJS.ProcessEnv = process.env): ProfileData {
  let raw: string;
  try {
    raw = readFileSync(configPath(env), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw err;
  }
  const data = JSON.parse(raw) as Partial<ProfileData>;
  return { active: data.active, profiles: data.profiles ?? {} };
}

async function conf() {
  const { default: Conf } = await import('conf');
  mkdirSync(configDir(), { recursive: true, mode: 0o700 }); // conf would create it 0755: it holds API keys
  return new Conf<ProfileData>({
    projectName: 'payorch',
    cwd: configDir(),
    configFileMode: 0o600,
    defaults: { profiles: {} },
  });
}

export async function saveProfile(name: string, profile: Profile, makeActive: boolean): Promise<void> {
  const c = await conf();
  c.set(`profiles`, { ...c.get('profiles'), [name]: profile });
  if (makeActive || !c.get('active')) c.set('active', name);
}

export async function setActive(name: string): Promise<void> {
  (await conf()).set('active', name);
}

export async function removeProfile(name: string): Promise<void> {
  const c = await conf();
  const profiles = { ...c.get('profiles') };
  delete profiles[name];
  c.set('profiles', profiles);
  if (c.get('active') === name) c.delete('active');
}
