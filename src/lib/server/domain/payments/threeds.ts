// 3D Secure: the test challenge a payment meets when its processor asks for one, the challenge's result, and
// its completion, after which the payment proceeds on the same processor. Every method runs inside the caller's
// transaction.
import { idBytes, randomUuid } from '../../ids.js';
import type { ThreeDSResult } from '../../../contract/payments.js';
import type { SessionStatus } from '../../../contract/sessions.js';
import type { Sessions } from '../sessions.js';
import { errors } from '../../errors.js';
import { declineMessage, type ProcessorRegistry } from './processors.js';
import type { PaymentRecords } from './records.js';
import type { StoredPayment } from './persistence.js';
import { hostedLinks } from '../links.js';

export class ThreeDS {
  constructor(
    private readonly records: PaymentRecords,
    private readonly sessions: Sessions,
    private readonly processors: ProcessorRegistry,
  ) {}

  /**
   * The processor asked for 3DS: the payment awaits the payer's challenge on the checkout page; returns the
   * session status it leads to. `returnUrl`: where the payer's browser goes after the challenge.
   */
  challenge(p: StoredPayment, baseUrl: string, returnUrl?: string): SessionStatus {
    // requires_action, not the contract's pending: the live service answers so and its SDK's challenge
    // branch tests for it (docs/api.md "Live-service parity").
    p.status = 'requires_action';
    const url = hostedLinks.threeds(baseUrl, p.session_id!);
    p.next_action = {
      type: 'redirect_to_url',
      url,
      redirect_to_url: { url, return_url: returnUrl ?? hostedLinks.checkout(baseUrl, p.session_id!) },
    };
    p.threeds = {
      status: 'challenge_required',
      authentication_value: null,
      eci: null,
      ds_transaction_id: randomUuid(),
      liability_shift: false,
    };
    return 'requires_action';
  }

  private async payment(accountId: string, sessionId: string): Promise<StoredPayment> {
    await this.sessions.collection.require(accountId, sessionId, 'payment_session', 'session_id');
    const p = (await this.records.ofSession(accountId, sessionId)).find((x) => x.threeds);
    if (!p) throw errors.notFound('threeds_authentication', sessionId, 'session_id');
    return p;
  }

  private api(p: StoredPayment): ThreeDSResult {
    return {
      object: 'threeds_result',
      session_id: p.session_id!,
      payment_id: p.id,
      ...p.threeds!,
      payment_status: this.records.toApi(p).status,
    };
  }

  async result(accountId: string, sessionId: string): Promise<ThreeDSResult> {
    return this.api(await this.payment(accountId, sessionId));
  }

  /** The cardholder finished the challenge: the test card decides; the payment proceeds on the same processor. */
  async complete(accountId: string, sessionId: string, now: number): Promise<ThreeDSResult> {
    const records = this.records;
    const p = await this.payment(accountId, sessionId);
    const t = p.threeds!;
    if (t.status !== 'challenge_required') return this.api(p);
    // (pending: a challenge begun before payments awaiting one were requires_action)
    if (p.status !== 'requires_action' && p.status !== 'pending') {
      throw errors.unexpectedState(
        'payment',
        `This payment is ${p.status}; its 3DS challenge can no longer be completed.`,
      );
    }
    const o = p.card_outcome;
    const authenticated = o?.kind === 'threeds' && o.then === 'success';
    Object.assign(
      t,
      authenticated
        ? {
            status: 'authenticated',
            authentication_value: idBytes(20).toString('base64'),
            eci: '05',
            liability_shift: true,
          }
        : { status: 'failed', authentication_value: null, eci: '07', liability_shift: false },
    );
    const r = this.processors.get(p.psp!).authorize({
      amount: p.amount,
      currency: p.currency,
      method: 'card',
      capture: p.capture_method,
      card: o ? { outcome: o } : undefined,
      attempt_index: p.attempts.length - 1,
      threeds: authenticated ? 'authenticated' : 'failed',
    });
    let next: SessionStatus;
    if (r.kind === 'approved') {
      p.attempts.at(-1)!.status = 'succeeded';
      p.psp_transaction_id = r.transaction_id;
      next = records.authorized(p);
    } else {
      const code = r.kind === 'requires_3ds' ? 'authentication_failed' : r.code;
      p.attempts.at(-1)!.status = 'failed';
      p.attempts.at(-1)!.code = code;
      records.fail(p, code, declineMessage(code), code);
      next = 'failed';
    }
    await records.collection.update(accountId, p);
    await records.recordStatus(accountId, p, now, 'requires_action');
    await this.sessions.transition(accountId, p.session_id!, now, ['requires_action'], next, 'authenticated');
    if (next === 'succeeded') await records.posted(accountId, p, p.amount, now);
    return this.api(p);
  }
}
