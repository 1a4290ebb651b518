// Which server and key a command talks to. Precedence: flags (--api-key, --base-url, --profile) > env
// (PAYORCH_API_KEY, PAYORCH_BASE_URL, PAYORCH_PROFILE) > the active profile > the embedded default
// (the test-mode server in this process, on the default data directory).
import { readProfiles } from '../profiles/store.js';
import { CliError, EXIT } from './errors.js';

export interface TargetFlags {
  'api-key'?: string;
  'base-url'?: string;
  profile?: string;
}

export type Target =
  | { kind: 'http'; apiKey: string; baseUrl: string; profile?: string; source: string }
  | { kind: 'embedded' };

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4242/functions/v1';

export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv = process.env): Target {
  const data = readProfiles(env);
  const profileName = flags.profile ?? env.PAYORCH_PROFILE ?? data.active;
  const explicitProfile = flags.profile ?? env.PAYORCH_PROFILE;
  const profile = profileName ? data.profiles[profileName] : undefined;
  if (explicitProfile && !profile) {
    const known = Object.keys(data.profiles);
    throw new CliError(`No profile named "${explicitProfile}".${known.length ? ` Known profiles: ${known.join(', ')}.` : ' Add one with `payorch profiles add NAME`.'}`, EXIT.AUTH);
  }
  // A profile named by --profile is a flag: it beats PAYORCH_API_KEY / PAYORCH_BASE_URL (flags > env).
  const flagProfile = flags.profile ? profile : undefined;
  const apiKey = flags['api-key'] ?? flagProfile?.api_key ?? env.PAYORCH_API_KEY ?? profile?.api_key;
  const baseUrl = flags['base-url'] ?? flagProfile?.base_url ?? env.PAYORCH_BASE_URL ?? profile?.base_url ?? DEFAULT_BASE_URL;
  if (!apiKey) {
    if (flags['base-url'] ?? env.PAYORCH_BASE_URL) {
      throw new CliError(`No API key for ${baseUrl}. Pass --api-key, set PAYORCH_API_KEY, or add a profile with \`payorch profiles add\`.`, EXIT.AUTH);
    }
    return { kind: 'embedded' };
  }
  const source = flags['api-key'] ? '--api-key' : !flagProfile && env.PAYORCH_API_KEY ? 'PAYORCH_API_KEY' : `profile "${profileName}"`;
  return { kind: 'http', apiKey, baseUrl, profile: profile ? profileName : undefined, source };
}

export const isLiveKey = (key: string | undefined) => Boolean(key?.startsWith('sk_live_'));
