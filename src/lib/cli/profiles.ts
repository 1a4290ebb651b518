// Profiles: named API keys and base URLs, stored with `conf` in `$PAYORCH_HOME` (else conf's default
// config directory), file mode 0600. Reading goes straight to the JSON file so that every API command does
// not pay conf's import cost; writing goes through conf (atomic writes, schema, file mode).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import { CliError, EXIT } from './errors.js';

export interface Profile {
  api_key: string;
  base_url?: string;
  /** `payorch listen`'s signing secret for this profile (README "Events and webhooks"). */
  listen_secret?: string;
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

/**
 * The stored profiles (an empty set when there is no file yet). A file that cannot be read or is not the
 * profiles' JSON is a configuration problem (exit 3) naming the file and the way out.
 */
export function readProfiles(env: NodeJS.ProcessEnv = process.env): ProfileData {
  const file = configPath(env);
  const unusable = (why: string) =>
    new CliError(
      `Cannot use the profiles file ${file}: ${why}. Fix or remove it (\`payorch profiles add\` writes a new one), point PAYORCH_HOME elsewhere, or pass --api-key and --base-url.`,
      EXIT.AUTH,
      'configuration_error',
    );
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { profiles: Object.create(null) as Record<string, Profile> };
    throw unusable(
      code === 'ENOTDIR'
        ? 'a part of its path is a file, not a directory (ENOTDIR)'
        : code === 'EISDIR'
          ? 'it is a directory (EISDIR)'
          : `${code ?? 'read error'}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw unusable(raw.trim() === '' ? 'it is empty' : 'it is not valid JSON (truncated or overwritten?)');
  }
  const d = data as Partial<ProfileData> | null;
  const isProfile = (p: unknown) =>
    Boolean(p) &&
    typeof p === 'object' &&
    typeof (p as Profile).api_key === 'string' &&
    ((p as Profile).base_url === undefined || typeof (p as Profile).base_url === 'string');
  if (
    !d ||
    typeof d !== 'object' ||
    Array.isArray(d) ||
    (d.active !== undefined && typeof d.active !== 'string') ||
    (d.profiles !== undefined &&
      (typeof d.profiles !== 'object' ||
        d.profiles === null ||
        Array.isArray(d.profiles) ||
        !Object.values(d.profiles).every(isProfile)))
  ) {
    throw unusable('it does not hold profiles ({"active": NAME, "profiles": {NAME: {"api_key": …, "base_url": …}}})');
  }
  // Without a prototype, so that a name such as `toString` or `constructor` is a profile only when the file has it.
  return { active: d.active, profiles: Object.assign(Object.create(null) as Record<string, Profile>, d.profiles) };
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

/**
 * Whether saving profile `name` makes it the active one unless told otherwise: there is no active profile, or one
 * that no longer exists (a hand-edited file), or `name` is the active one being replaced. `profiles add` makes a
 * live profile active only when asked (README "Profiles").
 */
export function activeByDefault(data: ProfileData, name: string): boolean {
  return !data.active || !Object.hasOwn(data.profiles, data.active) || data.active === name;
}

/** Saves `profile` as `name`; `active`: it becomes the active profile, else it is not (nor left) the active one. */
export async function saveProfile(name: string, profile: Profile, active: boolean): Promise<void> {
  const c = await conf();
  // Adding a profile again keeps its listener secret, so that a `.env` holding it keeps working.
  const kept = Object.hasOwn(c.get('profiles'), name) ? c.get('profiles')[name]?.listen_secret : undefined;
  c.set(`profiles`, {
    ...c.get('profiles'),
    [name]: kept && !profile.listen_secret ? { ...profile, listen_secret: kept } : profile,
  });
  if (active) c.set('active', name);
  else if (c.get('active') === name) c.delete('active');
}

export async function setActive(name: string): Promise<void> {
  (await conf()).set('active', name);
}

/** No active profile: commands with no key configured go back to the local test-mode server. */
export async function clearActive(): Promise<void> {
  (await conf()).delete('active');
}

export async function removeProfile(name: string): Promise<void> {
  const c = await conf();
  const profiles = { ...c.get('profiles') };
  delete profiles[name];
  c.set('profiles', profiles);
  if (c.get('active') === name) c.delete('active');
}

// Base62 in groups of four: valid base64 too, as Standard Webhooks reads a secret (docs/api.md "Signatures").
const LISTEN_SECRET = /^whsec_(?:[A-Za-z0-9]{4}){4,32}$/;

/**
 * `payorch listen`'s signing secret: the profile's (`profile` named), else the one for commands without a
 * profile (the local server, or a key and base URL from flags or environment). Made once and stored in the
 * profiles file (mode 0600), so that it stays the same across runs. A stored value that is not a secret of ours
 * is replaced.
 */
export async function listenSecret(
  profile: string | undefined,
  make: () => string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const stored = (): string | undefined => {
    let raw: { listen_secret?: unknown; profiles?: Record<string, { listen_secret?: unknown }> };
    try {
      raw = JSON.parse(readFileSync(configPath(env), 'utf8')) as typeof raw;
    } catch {
      return undefined;
    }
    const value =
      profile === undefined
        ? raw?.listen_secret
        : raw?.profiles && Object.hasOwn(raw.profiles, profile)
          ? raw.profiles[profile]?.listen_secret
          : undefined;
    return typeof value === 'string' && LISTEN_SECRET.test(value) ? value : undefined;
  };
  const found = stored();
  if (found) return found;
  readProfiles(env); // an unusable profiles file is an error (exit 3) rather than overwritten
  const c = await conf();
  const secret = make();
  if (profile === undefined) c.set('listen_secret' as never, secret as never);
  else {
    const profiles = c.get('profiles');
    if (!Object.hasOwn(profiles, profile)) throw new CliError(`No profile named "${profile}".`, EXIT.AUTH);
    c.set('profiles', { ...profiles, [profile]: { ...profiles[profile], listen_secret: secret } });
  }
  // Two listeners starting at once: both end up with what the file holds.
  return stored() ?? secret;
}
