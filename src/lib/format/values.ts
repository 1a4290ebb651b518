// The one place that formats values for people — money, times — used by the CLI's views and the server's pages alike.
const digitsCache = new Map<string, number>();

/** Minor-unit digits of a currency (USD 2, JPY 0, BHD 3). */
export function minorDigits(currency: string): number {
  const c = currency.toUpperCase();
  let d = digitsCache.get(c);
  if (d === undefined) {
    try {
      d =
        new Intl.NumberFormat('en-US', { style: 'currency', currency: c }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digitsCache.set(c, d);
  }
  return d;
}

/** `1999, "usd"` → `$19.99 USD`-style text: the amount in major units with the currency code. */
export function formatMoney(amount: number | null | undefined, currency: string | null | undefined): string {
  if (amount === null || amount === undefined) return '';
  if (!currency) return String(amount);
  const c = currency.toUpperCase();
  const digits = minorDigits(c);
  const major = amount / 10 ** digits;
  return `${major.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })} ${c}`;
}

/** Unix seconds or ISO strings → `2026-11-21 09:30:00 UTC`. */
export function formatTime(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return d
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' UTC');
}
