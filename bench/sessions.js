// N sessions, each with a confirmed payment, made through a started server's API in process (200 at a time): the data
// the snapshot benches (bench/snapshot.js, bench/pg-snapshot.js) save and restore.
export async function seed(server, n) {
  const auth = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
  for (let i = 0; i < n; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, n - i) }, async () => {
        const s = (
          await server.app.inject({
            method: 'POST',
            url: '/functions/v1/create-session',
            headers: auth,
            payload: { amount: 1999, currency: 'usd' },
          })
        ).json();
        const c = await server.app.inject({
          method: 'POST',
          url: `/functions/v1/confirm-payment/${s.id}`,
          headers: { authorization: `Bearer ${s.client_secret}`, 'content-type': 'application/json' },
          payload: { token_id: 'tok_visa' },
        });
        if (c.statusCode !== 200) throw new Error(`confirm: ${c.body}`);
      }),
    );
  }
}
