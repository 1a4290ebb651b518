// Wallet merchant validation (contract §7): the URL must be https, the session must allow walletone_pay;
// the answer is an opaque merchant session. The local server never fetches validation_url.
import { createHash } from 'node:crypto';
import { idBytes } from '../../ids.js';
import type { MerchantSession, ValidateMerchantBody } from '../../../contract/payments.js';
import type { SessionFacts } from '../sessions.js';
import { errors } from '../../errors.js';
import { unixSeconds } from '../../clock.js';
import { checkHttpUrl } from '../values.js';

export function validateMerchant(session: SessionFacts, body: ValidateMerchantBody, now: number): MerchantSession {
  checkHttpUrl(body.validation_url, 'validation_url', 'https');
  if (
    !/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(body.domain)
  ) {
    throw errors.parameterInvalid('domain', 'must be a domain name');
  }
  if (!session.payment_method_types.includes('walletone_pay')) {
    throw errors.invalidRequest(
      'payment_method_not_allowed',
      'This payment session does not allow walletone_pay.',
      'session_id',
    );
  }
  const nonce = idBytes(8).toString('hex');
  return {
    object: 'walletone_merchant_session',
    session_id: session.id,
    merchant_session_identifier: `SSH${idBytes(16).toString('hex').toUpperCase()}`,
    merchant_identifier: createHash('sha256')
      .update(`payorch-test-merchant:${body.domain}`)
      .digest('hex')
      .toUpperCase(),
    domain_name: body.domain,
    display_name: 'payorch test merchant',
    nonce,
    signature: idBytes(64).toString('base64'),
    epoch_timestamp: unixSeconds(now) * 1000,
    expires_at: (unixSeconds(now) + 300) * 1000,
  };
}
