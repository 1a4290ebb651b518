// GET /test-cards: the test values of contract §7–§8 as data.
import type { TestCardsList } from '../../../contract/payments.js';
import { ACH_TEST, TEST_CARDS } from '../testcards.js';
import { MICRODEPOSIT_AMOUNTS } from './bankaccounts.js';

const result = (c: (typeof TEST_CARDS)[number]): string => {
  const o = c.outcome;
  switch (o.kind) {
    case 'success':
      return o.refunds === 'fail' ? 'success, refunds fail' : 'success';
    case 'decline':
      return o.code;
    case 'processing_error':
      return 'processing_error';
    case 'processor_unavailable':
      return 'failover';
    case 'threeds':
      return o.then === 'success' ? '3ds_success' : '3ds_authentication_failed';
  }
};

export function testValues(): TestCardsList {
  return {
    object: 'test_values',
    cards: TEST_CARDS.map((c) => ({
      token: c.token,
      number: c.number ?? null,
      brand: c.brand,
      result: result(c),
      description: c.description,
    })),
    wallet_tokens: [
      { token: '(any non-empty string)', result: 'success' },
      { token: 'wallet_declined', result: 'card_declined' },
    ],
    bank_accounts: [
      { routing_number: ACH_TEST.routing, account_number: ACH_TEST.settles, result: 'settles' },
      {
        routing_number: ACH_TEST.routing,
        account_number: ACH_TEST.insufficientFunds,
        result: 'insufficient_funds at settlement',
      },
      { routing_number: ACH_TEST.routing, account_number: ACH_TEST.rejectedAtCreation, result: 'rejected at creation' },
    ],
    microdeposit_amounts: [...MICRODEPOSIT_AMOUNTS],
  };
}
