// Billing's due work on the test clock: four kinds of due work, run by the scheduler in time order (and, at
// equal times, in this order): trial ends (and, 3 days before, the trial_will_end notice), renewals (incl.
// cancel at period end; and, 3 days before, the invoice.upcoming notice, named `invoice upcoming notices` in an
// advance's `ran`), dunning retries, due dates.
import type { DueWork } from '../due.js';
import type { Invoices } from './invoices.js';
import type { Subscriptions } from './subscriptions.js';

export function billingDueWork(subs: Subscriptions, invoices: Invoices): DueWork[] {
  const trialEnds: DueWork = {
    name: 'subscription trial ends',
    nextDue: (accountId) => subs.nextDue(accountId, ['trialing']),
    async runDue(now, accountId, limit) {
      const due = await subs.due(['trialing'], now, accountId, limit);
      for (const { accountId: acct, doc } of due) await subs.trialDue(acct, doc, now);
      return due.length;
    },
  };
  const renewals: DueWork = {
    name: 'subscription renewals',
    nextDue: (accountId) => subs.nextDue(accountId, ['active', 'past_due']),
    async runDue(now, accountId, limit, tally) {
      const due = await subs.due(['active', 'past_due'], now, accountId, limit);
      for (const { accountId: acct, doc } of due)
        if ((await subs.renewalDue(acct, doc, now)) === 'notice') tally?.('invoice upcoming notices');
      return due.length;
    },
  };
  const retries: DueWork = {
    name: 'invoice payment retries',
    nextDue: (accountId) => invoices.nextDue(accountId, 'retry'),
    async runDue(now, accountId, limit) {
      const due = await invoices.due('retry', now, accountId, limit);
      for (const { accountId: acct, doc } of due) await invoices.retry(acct, doc, now);
      return due.length;
    },
  };
  const dueDates: DueWork = {
    name: 'invoice due dates',
    nextDue: (accountId) => invoices.nextDue(accountId, 'due'),
    async runDue(now, accountId, limit) {
      const due = await invoices.due('due', now, accountId, limit);
      for (const { accountId: acct, doc } of due) await invoices.pastDue(acct, doc, now);
      return due.length;
    },
  };
  return [trialEnds, renewals, retries, dueDates];
}
