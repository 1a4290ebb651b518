// Shared fixtures for billing tests: everything goes through the real server over HTTP.
import { expect } from 'vitest';
import type { TestServer } from '../helpers/server.js';
import type { Customer, Price, Product } from '../../dist/lib/contract/billing.js';
import type { ClockState } from '../../dist/lib/contract/meta.js';

export async function ok<T = any>(
  s: TestServer,
  method: string,
  path: string,
  body?: unknown,
  status?: number,
): Promise<T> {
  const r = await s.request(method, path, body === undefined ? {} : { body });
  if (r.status >= 400 || (status !== undefined && r.status !== status)) {
    throw new Error(`${method} ${path} → ${r.status} ${r.text}`);
  }
  return r.body as T;
}

export async function fails(s: TestServer, method: string, path: string, body: unknown, status: number, code: string) {
  const r = await s.request(method, path, body === undefined ? {} : { body });
  expect({
    status: r.status,
    code: r.body?.error?.code,
    text: r.status === status && r.body?.error?.code === code ? '' : r.text,
  }).toEqual({ status, code, text: '' });
  return r.body.error;
}

export async function product(s: TestServer, name = 'Pro plan') {
  return ok<Product>(s, 'POST', '/products', { name });
}

export async function monthlyPrice(
  s: TestServer,
  productId: string,
  unit_amount: number,
  extra: Record<string, unknown> = {},
) {
  return ok<Price>(s, 'POST', '/prices', {
    product: productId,
    currency: 'usd',
    unit_amount,
    recurring: { interval: 'month' },
    ...extra,
  });
}

export async function customer(s: TestServer, pm: string | null = 'tok_visa', extra: Record<string, unknown> = {}) {
  return ok<Customer>(s, 'POST', '/customers', {
    email: 'jo@example.com',
    name: 'Jo',
    ...(pm ? { default_payment_method: pm } : {}),
    ...extra,
  });
}

export async function clock(s: TestServer): Promise<number> {
  return (await ok<ClockState>(s, 'GET', '/test-helpers/clock')).now;
}

export async function advance(s: TestServer, body: { seconds?: number; to?: number | string }) {
  return ok<ClockState>(s, 'POST', '/test-helpers/advance-clock', body);
}

export const DAY = 86_400;
