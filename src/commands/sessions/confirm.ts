import { Args, Flags } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { paymentFields } from '../../lib/output/views/payments.js';
import type { ConfirmPaymentBody } from '../../lib/contract/payments.js';

const WALLET_FIELD = {
  walletone_pay: 'walletone_pay_token',
  wallettwo_pay: 'wallettwo_pay_token',
  walletthree: 'walletthree_token',
} as const;

export default class SessionsConfirm extends ApiCommand {
  static override summary =
    'Confirm a payment session (pay it) with a card token, a test card number, a wallet token or a bank account';
  static override description =
    'Fetches the session’s client secret with your API key and confirms with it. --card goes through the local test vault first (the number is sent only there). See `payorch test-cards` for the test values.';
  static override examples = [
    '<%= config.bin %> sessions confirm 0190… --token tok_visa',
    '<%= config.bin %> sessions confirm 0190… --card 4000000000003220 --exp 12/30 --cvc 123',
    '<%= config.bin %> sessions confirm 0190… --wallet walletone_pay --wallet-token abc',
    '<%= config.bin %> sessions confirm 0190… --bank-account ba_… --holder-name "Jenny Rosen"',
  ];
  // oclif's generated line groups --exp with --card as `[--exp <value> --card <value>]`, which reads as if --exp
  // were required: one way to pay, and the card's own options inside its branch.
  static override usage = [
    '<%= command.id %> ID (--token TOK | --card NUMBER [--exp MM/YY] [--cvc CVC] | --wallet TYPE --wallet-token TOKEN | --bank-account BA_ID [--holder-name NAME]) [--psp ID] [--idempotency-key KEY] [-y] [--json] [--color on|off|auto] [--api-key KEY] [--base-url URL] [--profile NAME] [--timeout SECONDS] [--simulate FAULT]',
  ];
  static override args = { id: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = {
    token: Flags.string({ description: 'Card token (tok_visa, a vault token, or a network token nt_…)' }),
    card: Flags.string({ description: 'Test card number (tokenized through the local test vault)' }),
    exp: Flags.string({ description: 'Card expiry MM/YY (default 12 / five years ahead)', dependsOn: ['card'] }),
    cvc: Flags.string({ description: 'Card CVC (default 123)', dependsOn: ['card'] }),
    wallet: Flags.string({
      options: ['walletone_pay', 'wallettwo_pay', 'walletthree'],
      description: 'Wallet type',
      dependsOn: ['wallet-token'],
    }),
    'wallet-token': Flags.string({ description: 'Wallet payment token', dependsOn: ['wallet'] }),
    'bank-account': Flags.string({ description: 'A verified bank account id (ba_…)' }),
    'holder-name': Flags.string({
      description: 'Account holder name for --bank-account (default: the account’s holder)',
    }),
    psp: Flags.string({ description: 'Force one processor (disables failover)' }),
    'idempotency-key': idempotencyFlag,
    yes: yesFlag,
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SessionsConfirm);
    const given = (['token', 'card', 'wallet', 'bank-account'] as const).filter((f) => flags[f] !== undefined);
    if (given.length !== 1) {
      throw new CliError(
        'Give exactly one of --token, --card, --wallet (with --wallet-token) or --bank-account.',
        EXIT.USAGE,
      );
    }
    const client = await this.client(flags);
    const session = await client.sessions.retrieve(args.id);
    const body: ConfirmPaymentBody = {};
    if (flags.psp) body.psp = flags.psp as ConfirmPaymentBody['psp'];
    if (flags.token) body.token_id = flags.token;
    else if (flags.card) {
      const year = new Date().getUTCFullYear() + 5;
      const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(flags.exp ?? `12/${year}`);
      if (!m) throw new CliError('--exp takes MM/YY (e.g. 12/30).', EXIT.USAGE);
      const expYear = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
      const tok = await client.vault.tokenize({
        number: flags.card,
        exp_month: Number(m[1]),
        exp_year: expYear,
        cvc: flags.cvc ?? '123',
      });
      body.token_id = tok.token_id;
    } else if (flags.wallet) {
      body[WALLET_FIELD[flags.wallet as keyof typeof WALLET_FIELD]] = flags['wallet-token'];
    } else if (flags['bank-account']) {
      const holder = flags['holder-name'] ?? (await client.bankAccounts.retrieve(flags['bank-account'])).holder_name;
      body.bank_account = { bank_account_id: flags['bank-account'], account_holder_name: holder };
    }
    await this.confirmChange(`confirm payment session ${args.id}`, flags.yes);
    const payment = await client.payments.confirm(args.id, session.client_secret, body, {
      idempotencyKey: flags['idempotency-key'],
    });
    // A payment waiting for 3D Secure: its view says how to complete the challenge (next action).
    return this.detail(payment, 'Payment', paymentFields);
  }
}
