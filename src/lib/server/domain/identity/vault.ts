// The identity vault (docs/api.md "Identity vault"): personal identifiers stored sealed (AES-256-GCM, services.sealer),
// never returned, never logged, never echoed in an error. Only `masked_value` (at most the last 4) leaves.
import type {
  CreateIdentityTokenBody,
  DeletedIdentityToken,
  IdentityToken,
  IdentityTokenPage,
  IdentityTokenType,
  ListIdentityTokensQuery,
} from '../../../contract/identity.js';
import type { Documents } from '../../store/seam.js';
import type { Sealer } from '../../crypto.js';
import { newId } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import type { Events } from '../events.js';

export type StoredToken = Omit<IdentityToken, 'token_id'> & { id: string; value_sealed: string };

/** What the vault keeps: its tokens, and a page of an account's tokens (of one type) by offset, newest first. */
export interface VaultPort {
  readonly tokens: Documents<StoredToken>;
  page(accountId: string, type: IdentityTokenType | undefined, limit: number, offset: number): Promise<StoredToken[]>;
}

const NINE_DIGITS = new Set<IdentityTokenType>(['ssn', 'ein', 'itin']);

/**
 * The canonical value for `type`, or a 400 that never contains the value. ssn/ein/itin: 9 digits (dashes and
 * spaces are ignored), itin starting with 9; ssn_last4: 4 digits; every other type: 1–100 characters.
 */
export function normalizeValue(type: IdentityTokenType, raw: string): string {
  if (NINE_DIGITS.has(type)) {
    const digits = raw.replace(/[\s-]/g, '');
    if (!/^\d{9}$/.test(digits)) throw errors.parameterInvalid('value', `an ${type} is 9 digits`);
    if (type === 'itin' && !digits.startsWith('9')) throw errors.parameterInvalid('value', 'an itin starts with 9');
    return digits;
  }
  if (type === 'ssn_last4') {
    if (!/^\d{4}$/.test(raw.trim())) throw errors.parameterInvalid('value', 'an ssn_last4 is 4 digits');
    return raw.trim();
  }
  const v = raw.trim();
  if (v.length < 1 || [...v].length > 100) throw errors.parameterInvalid('value', 'must be 1–100 characters');
  return v;
}

/** At most the last 4 characters, and never more than half of the value (a 4-digit value shows 2). */
export function maskValue(type: IdentityTokenType, value: string): string {
  const chars = [...value];
  const shown = Math.min(4, Math.floor(chars.length / 2));
  const tail = chars.slice(chars.length - shown).join('');
  switch (type) {
    case 'ssn':
    case 'itin':
      return `***-**-${tail}`;
    case 'ein':
      return `**-***${tail}`;
    default:
      return `****${tail}`;
  }
}

export class Vault {
  readonly tokens: Documents<StoredToken>;

  constructor(
    private readonly stored: VaultPort,
    private readonly sealer: Sealer,
    private readonly events: Events,
  ) {
    this.tokens = stored.tokens;
  }

  async create(accountId: string, body: CreateIdentityTokenBody, now: number): Promise<IdentityToken> {
    const value = normalizeValue(body.type, body.value);
    const stored: StoredToken = {
      id: newId('idt'),
      object: 'identity_token',
      type: body.type,
      masked_value: maskValue(body.type, value),
      field_name: body.field_name ?? null,
      environment: 'test',
      created_at: isoTime(now),
      value_sealed: this.sealer.seal(value),
    };
    await this.tokens.insert(accountId, stored);
    const api = toApi(stored);
    await this.events.record(accountId, 'identity_token.created', eventObject(api), { at: now });
    return api;
  }

  async get(accountId: string, id: string): Promise<IdentityToken> {
    return toApi(await this.tokens.require(accountId, id, 'identity_token', 'token_id'));
  }

  /** Offset pagination (the contract's `pagination` object), newest first. */
  async list(accountId: string, q: ListIdentityTokensQuery): Promise<IdentityTokenPage> {
    const limit = q.limit ?? 10;
    const offset = q.offset ?? 0;
    const rows = await this.stored.page(accountId, q.type, limit, offset);
    const total = await this.tokens.total(accountId, { type: q.type });
    return {
      object: 'list',
      data: rows.map(toApi),
      pagination: { total, limit, offset, has_more: offset + rows.length < total },
    };
  }

  async delete(accountId: string, id: string, now: number): Promise<DeletedIdentityToken> {
    const stored = await this.tokens.require(accountId, id, 'identity_token', 'token_id');
    await this.tokens.delete(accountId, id);
    await this.events.record(accountId, 'identity_token.deleted', eventObject(toApi(stored)), { at: now });
    return { token_id: id, object: 'identity_token', deleted: true };
  }

  /** The clear value, for in-process checks only (KYC); never to be returned or logged. */
  async reveal(accountId: string, id: string): Promise<{ type: IdentityTokenType; value: string } | undefined> {
    const t = await this.tokens.get(accountId, id);
    return t ? { type: t.type, value: this.sealer.open(t.value_sealed) } : undefined;
  }
}

/** A token in an event: as the API shows it (never the value), plus `id` (= token_id) like every event object. */
const eventObject = (t: IdentityToken) => ({ id: t.token_id, ...t });

function toApi(t: StoredToken): IdentityToken {
  const { id, value_sealed: _sealed, ...rest } = t;
  return { token_id: id, ...rest };
}
