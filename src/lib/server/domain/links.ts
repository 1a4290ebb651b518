// Links to the server's own hosted pages, made from the address it serves at now (ServerConfig.publicUrl) on every
// read: a data directory is served at different addresses over time (4242, any free port, `--port N`), so a stored
// link would 404 or reach another directory's server. The link stored at creation (and in its events) is replaced.
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
