// The CLI's views format values with the same functions as the server's pages (src/lib/format/values.ts).
export { formatMoney, formatTime, minorDigits } from '../format/values.js';
