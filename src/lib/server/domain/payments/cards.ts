// Card payment methods: the test tokenization vault (raw numbers go no further than `tokenize`), the
// predefined test tokens (tok_visa …) and network tokens. Everything downstream sees only brand, last4,
// expiry and the test behaviour (CardOutcome) — never a card number.
import type { NetworkToken, VaultToken, VaultTokenBody, Cryptogram } from '../../../contract/payments.js';
import type { Documents } from '../../store/seam.js';
import type { Card, PaymentsPort, StoredNetworkToken, StoredVaultToken } from './persistence.js';
import { idBytes, newId } from '../../ids.js';
import { isoTime } from '../../clock.js';
import { errors } from '../../errors.js';
import { luhnValid, testCardByNumber, testCardByToken, type CardOutcome } from '../testcards.js';
import type { Events } from '../events.js';
import { looksLikeCardNumber } from '../../../contract/common.js';

/** A card as the payments service sees it. */
export interface ResolvedCard {
  card: Card;
  outcome: CardOutcome;
}

/** Vault tokens are not bound to a merchant account (the vault stands for an external one). */
const VAULT_ACCOUNT = '';

export function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^6(011|5)/.test(number)) return 'discover';
  return 'unknown';
}

export class Cards {
  readonly vault: Documents<StoredVaultToken>;
  readonly networkTokens: Documents<StoredNetworkToken>;

  constructor(
    stored: PaymentsPort,
    private readonly events: Events,
  ) {
    this.vault = stored.vaultTokens;
    this.networkTokens = stored.networkTokens;
  }

  /** POST /vault/tokens. The number, CVC and anything derived from them beyond last4 are dropped here. */
  async tokenize(body: VaultTokenBody, now: number): Promise<VaultToken> {
    const number = body.number.replace(/[\s-]/g, '');
    if (!luhnValid(number)) throw errors.parameterInvalid('number', 'this is not a valid card number');
    if (body.cvc !== undefined && !/^\d{3,4}$/.test(body.cvc))
      throw errors.parameterInvalid('cvc', 'must be 3 or 4 digits');
    const d = new Date(now);
    const [y, m] = [d.getUTCFullYear(), d.getUTCMonth() + 1];
    if (body.exp_year < y || (body.exp_year === y && body.exp_month < m))
      throw errors.parameterInvalid('exp_year', 'the card has expired');
    const test = testCardByNumber(number);
    const card: Card = {
      brand: test?.brand ?? brandOf(number),
      last4: number.slice(-4),
      exp_month: body.exp_month,
      exp_year: body.exp_year,
    };
    const stored: StoredVaultToken = { id: newId('tok'), card, behaves_as: test?.token ?? 'tok_visa', created_ms: now };
    await this.vault.insert(VAULT_ACCOUNT, stored);
    return { object: 'token', token_id: stored.id, card, created_at: isoTime(now) };
  }

  /** A card token (predefined test token, vault token, or network token of this account) → card + behaviour. */
  async resolve(accountId: string, token: string, now: number, param = 'token_id'): Promise<ResolvedCard> {
    const predefined = testCardByToken(token);
    if (predefined) {
      const year = new Date(now).getUTCFullYear() + 3;
      return {
        card: { brand: predefined.brand, last4: predefined.number?.slice(-4) ?? '0000', exp_month: 12, exp_year: year },
        outcome: predefined.outcome,
      };
    }
    const stored = token.startsWith('nt_')
      ? await this.networkTokens.get(accountId, token)
      : await this.vault.get(VAULT_ACCOUNT, token);
    if (!stored) {
      // A card number where a token goes (a frontend that skipped the vault): refused like any unknown token, but
      // never echoed — an error body ends up in client logs, and in a failed billing charge's stored message.
      if (looksLikeCardNumber(token)) {
        throw errors.invalidRequest(
          'resource_missing',
          'No such token: the value given looks like a card number, which is never taken here (and not repeated in this message); tokenize the card with POST /vault/tokens and send its token_id.',
          param,
        );
      }
      throw errors.invalidRequest('resource_missing', `No such token: '${token}'`, param);
    }
    return { card: stored.card, outcome: testCardByToken(stored.behaves_as)!.outcome };
  }

  private async behaviourOf(token: string): Promise<string> {
    if (testCardByToken(token)) return token;
    const stored = token.startsWith('nt_') ? undefined : await this.vault.get(VAULT_ACCOUNT, token);
    return stored?.behaves_as ?? 'tok_visa';
  }

  // ------------------------------------------------------------------------------ network tokens

  private ntApi(t: StoredNetworkToken): NetworkToken {
    return {
      id: t.id,
      object: 'network_token',
      status: 'active',
      card: t.card,
      network_token_last4: t.network_token_last4,
      created_at: isoTime(t.created_ms),
      livemode: false,
      networkTokenId: t.id,
      network: t.card.brand,
      tokenExpiryMonth: String(t.card.exp_month).padStart(2, '0'),
      tokenExpiryYear: String(t.card.exp_year),
    };
  }

  /** `withCryptogram`: the live service's `request_cryptogram`, a first cryptogram in the answer. */
  async createNetworkToken(
    accountId: string,
    tokenId: string,
    now: number,
    withCryptogram = false,
  ): Promise<NetworkToken> {
    if (tokenId.startsWith('nt_'))
      throw errors.parameterInvalid('token_id', 'give a card token (tok_…), not a network token');
    const { card } = await this.resolve(accountId, tokenId, now);
    const t: StoredNetworkToken = {
      id: newId('nt'),
      card,
      behaves_as: await this.behaviourOf(tokenId),
      network_token_last4: String(1000 + (idBytes(2).readUInt16BE(0) % 9000)),
      created_ms: now,
    };
    await this.networkTokens.insert(accountId, t);
    // The event carries the token without a cryptogram (a one-time secret for the requester only).
    await this.events.record(accountId, 'network_token.created', this.ntApi(t), { at: now });
    if (!withCryptogram) return this.ntApi(t);
    const c = await this.cryptogram(accountId, t.id, now);
    return { ...this.ntApi(t), cryptogram: c.cryptogram, cryptogramType: c.cryptogramType };
  }

  async getNetworkToken(accountId: string, id: string): Promise<NetworkToken> {
    return this.ntApi(await this.networkTokens.require(accountId, id, 'network_token', 'network_token_id'));
  }

  async deleteNetworkToken(
    accountId: string,
    id: string,
    now: number,
  ): Promise<{ id: string; object: 'network_token'; deleted: true }> {
    const t = await this.networkTokens.require(accountId, id, 'network_token', 'network_token_id');
    await this.networkTokens.delete(accountId, id);
    await this.events.record(accountId, 'network_token.deleted', this.ntApi(t), { at: now });
    return { id, object: 'network_token', deleted: true };
  }

  async cryptogram(accountId: string, id: string, now: number): Promise<Cryptogram> {
    await this.networkTokens.require(accountId, id, 'network_token', 'network_token_id');
    const expires = isoTime(now + 15 * 60_000);
    return {
      object: 'network_token_cryptogram',
      network_token_id: id,
      cryptogram: idBytes(20).toString('base64'),
      eci: '05',
      expires_at: expires,
      cryptogramType: 'TAVV',
      expiresAt: expires,
    };
  }
}
