// The one place that makes values safe inside the server's HTML pages: as element text or an attribute value
// (escapeHtml), and as a JavaScript literal inside an inline <script> (scriptJson).

/** Text or a quoted attribute value: `&`, `<`, `>`, `"` and `'` as entities. */
export const escapeHtml = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * A value as a JavaScript literal safe inside an inline `<script>`: JSON with `<` (so no `</script>` or
 * `<script>` can come from page data), U+2028 and U+2029 escaped.
 */
export const scriptJson = (v: unknown): string =>
  JSON.stringify(v ?? null)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
