// Health, clock and other test-mode helper shapes.
import { Type, type Static } from '@sinclair/typebox';

export const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  livemode: Type.Boolean(),
  time: Type.String(),
});
export type Health = Static<typeof Health>;

import { MAX_CLOCK_ADVANCE_SECONDS } from './limits.js';

export { MAX_CLOCK_ADVANCE_SECONDS };

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
