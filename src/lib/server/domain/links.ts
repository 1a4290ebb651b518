// Links to the server's own hosted pages, made from the address it serves at now (ServerConfig.publicUrl) each
// time an object is read, never the address its creator had. A data directory is served at different addresses
// over time: in the CLI's process (the default, 4242), by a background server on any free port when 4242 is taken,
// by `server start --port N`; a stored link would 404, or reach another directory's server. Objects keep the link
// made at creation in what is stored (and in the events recorded then); reads replace it.
export const hostedLinks = {
  /** A payment session's checkout page (`fallback_url`). */
  checkout: (base: string, sessionId: string) => `${base}/pay/${sessionId}`,
  /** Its 3-D Secure challenge step (`next_action.url`). */
  threeds: (base: string, sessionId: string) => `${base}/pay/${sessionId}?step=threeds`,
  /** A subscription-mode checkout session's page (a payment-mode one is its payment session's checkout page). */
  checkoutSession: (base: string, id: string) => `${base}/checkout/${id}`,
  portal: (base: string, id: string) => `${base}/portal/${id}`,
  invoice: (base: string, id: string) => `${base}/invoice/${id}`,
};
