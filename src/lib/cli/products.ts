// What `products create` and `products update` share: the flags for a product's details and their request fields.
import { Flags } from '@oclif/core';
import { idempotencyFlag, metadataFlag, parseMetadata, yesFlag } from './base.js';

/** The product's details, then --metadata, --idempotency-key and --yes. */
export const productDetailFlags = {
  description: Flags.string({ description: 'Description' }),
  'unit-label': Flags.string({ description: 'Unit label (e.g. seat)' }),
  'statement-descriptor': Flags.string({ description: 'Statement descriptor (≤ 22 characters)' }),
  image: Flags.string({ description: 'Image URL (repeatable)', multiple: true }),
  metadata: metadataFlag,
  'idempotency-key': idempotencyFlag,
  yes: yesFlag,
};

/** productDetailFlags' values as the request's fields. */
export function productDetails(flags: {
  description?: string;
  'unit-label'?: string;
  'statement-descriptor'?: string;
  image?: string[];
  metadata?: string[];
}) {
  return {
    description: flags.description,
    unit_label: flags['unit-label'],
    statement_descriptor: flags['statement-descriptor'],
    images: flags.image,
    metadata: parseMetadata(flags.metadata),
  };
}
