// Which server and key a command talks to. Precedence: flags (--api-key, --base-url, --profile) > env
// (PAYORCH_API_KEY, PAYORCH_BASE_URL, PAYORCH_PROFILE) > the active profile > the embedded default
// (the test-mode server in this process, on the default data directory).
import { configPath, readProfiles } from './profiles.js';
import { CliError, EXIT } from './errors.js';
import { DEFAULT_BASE_URL } from '../contract/prefix.js';

export interface TargetFlags {
  'api-key'?: string;
  'base-url'?: string;
  profile?: string;
}

export type Target =
  | { kind: 'http'; apiKey: string; baseUrl: string; profile?: string; source: string }
  | { kind: 'embedded' };

/**
 * A blank key, URL or profile name — `--api-key ''`, or `PAYORCH_API_KEY=` from a script whose variable was
 * empty — is a usage error (exit 2): read as "none", it would quietly send the command somewhere else (the local
 * test-mode server instead of the profile's live one).
 */
function refuseBlank(flags: TargetFlags, env: NodeJS.ProcessEnv): void {
  const given: [string, string | undefined, string][] = [
    ['--api-key', flags['api-key'], 'a key'],
    ['--base-url', flags['base-url'], 'a URL'],
    ['--profile', flags.profile, 'a profile name'],
    ['PAYORCH_API_KEY', env.PAYORCH_API_KEY, 'a key'],
    ['PAYORCH_BASE_URL', env.PAYORCH_BASE_URL, 'a URL'],
    ['PAYORCH_PROFILE', env.PAYORCH_PROFILE, 'a profile name'],
  ];
  for (const [name, value, what] of given) {
    if (value === undefined || value.trim() !== '') continue;
    throw new CliError(
      name.startsWith('--')
        ? `${name} is blank; give ${what}, or leave the flag out.`
        : `${name} is set but blank; give it ${what}, or unset it (\`unset ${name}\`).`,
      EXIT.USAGE,
    );
  }
}

export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): Target {
  refuseBlank(flags, env);
  // The profiles file is read only when a profile can matter: a key and a base URL from flags or env need none.
  const needsFile =
    Boolean(flags.profile ?? env.PAYORCH_PROFILE) ||
    !(flags['api-key'] ?? env.PAYORCH_API_KEY) ||
    !(flags['base-url'] ?? env.PAYORCH_BASE_URL);
  const data = needsFile ? readProfiles(env) : { profiles: {} as Record<string, never>, active: undefined };
  const profileName = flags.profile ?? env.PAYORCH_PROFILE ?? data.active;
  const explicitProfile = flags.profile ?? env.PAYORCH_PROFILE;
  const profile = profileName ? data.profiles[profileName] : undefined;
  if (profileName && !profile) {
    // An active profile that is gone must not quietly send commands somewhere else (the embedded server).
    const known = Object.keys(data.profiles);
    throw new CliError(
      `${explicitProfile ? `No profile named "${profileName}".` : `The active profile "${profileName}" does not exist (${configPath(env)}).`}${known.length ? ` Known profiles: ${known.join(', ')} (\`payorch profiles use NAME\`).` : ' Add one with `payorch profiles add NAME --use`.'}`,
      EXIT.AUTH,
    );
  }
  // A profile named by --profile is a flag: it beats PAYORCH_API_KEY / PAYORCH_BASE_URL (flags > env).
  const flagProfile = flags.profile ? profile : undefined;
  const apiKey = flags['api-key'] ?? flagProfile?.api_key ?? env.PAYORCH_API_KEY ?? profile?.api_key;
  const baseUrl =
    flags['base-url'] ?? flagProfile?.base_url ?? env.PAYORCH_BASE_URL ?? profile?.base_url ?? DEFAULT_BASE_URL;
  if (!apiKey) {
    if (flags['base-url'] ?? env.PAYORCH_BASE_URL) {
      throw new CliError(
        `No API key for ${baseUrl}. Pass --api-key, set PAYORCH_API_KEY, or add a profile with \`payorch profiles add\`.`,
        EXIT.AUTH,
      );
    }
    return { kind: 'embedded' };
  }
  const source = flags['api-key']
    ? '--api-key'
    : !flagProfile && env.PAYORCH_API_KEY
      ? 'PAYORCH_API_KEY'
      : `profile "${profileName}"`;
  return { kind: 'http', apiKey, baseUrl, profile: profile ? profileName : undefined, source };
}

export { isLiveKey } from '../contract/keys.js';
