// Health, clock and other test-mode helper shapes.
import { Type, type Static } from '@sinclair/typebox';

export const Health = Type.Object({ status: Type.Literal('ok'), version: Type.String(), livemode: Type.Boolean(), time: Type.String() });
export type Health = Static<typeof Health>;

/**
 * How far one advance may move the clock: each call runs everything that comes due on the way (a renewal
 * per period per subscription), so an unbounded jump would hold the server for as long as it likes.
 */
export const MAX_CLOCK_ADVANCE_SECONDS = 366 * 86400;

export const AdvanceClockBody = Type.Object(
  {
    seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CLOCK_ADVANCE_SECONDS })),
    to: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ format: 'date-time' })])),
  },
  { additionalProperties: false },
);
export type AdvanceClockBody = Static<typeof AdvanceClockBody>;

export const ClockState = Type.Object({
  object: Type.Literal('test_clock'),
  now: Type.Integer({ description: 'Unix seconds on the account clock' }),
  now_iso: Type.String(),
  ran: Type.Array(Type.Object({ name: Type.String(), at: Type.String(), count: Type.Integer() })),
});
export type ClockState = Static<typeof ClockState>;
