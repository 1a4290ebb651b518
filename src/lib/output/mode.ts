// The one label of a key's mode, wherever the CLI shows a key or a profile: live keys are marked LIVE, so that a
// command about to use one never looks like a test-mode one.
import { isLiveKey } from '../contract/keys.js';
import { maskSecret } from './mask.js';

/** `LIVE` or `test`: a profile's mode (`profiles list`'s MODE column, `profiles show`). */
export const modeLabel = (apiKey: string): 'LIVE' | 'test' => (isLiveKey(apiKey) ? 'LIVE' : 'test');

/** A key as people see it: masked, and marked when live (`LIVE sk_live_…wxyz`, `sk_test_…wxyz`). */
export const keyLabel = (apiKey: string): string => `${isLiveKey(apiKey) ? 'LIVE ' : ''}${maskSecret(apiKey)}`;
