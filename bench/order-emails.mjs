// The emails the sandbox benches post: 50 "order shipped" emails per batch, each to its own
// recipient under its own idempotency key; by default a heading, bold text and a link in each (the
// body the sandbox's text generation is measured on), `plain` a one-paragraph body.

/** A maker of batch bodies (JSON strings), numbering its emails from 0 on: `next()` gives the next 50. */
export function orderBatches({ keyPrefix, plain = false, scheduled = false }) {
  let seq = 0;
  return function next() {
    const emails = [];
    for (let i = 0; i < 50; i++) {
      const n = seq++;
      emails.push({
        from: 'Bench <bench@example.com>',
        to: `user${n}@customer.test`,
        subject: `Order ${n} shipped`,
        html: plain ? `<p>Hi user ${n}, your order ${n} is on its way.</p>` : `<h1>Hi user ${n}</h1><p>Your order <b>#${n}</b> is on its way. <a href="https://example.com/t/${n}">Track it</a>.</p>`,
        idempotencyKey: `${keyPrefix}-${n}`,
        ...(scheduled ? { sendAt: new Date(Date.now() + 3_600_000 + (n % 86_400) * 1000).toISOString() } : {}),
      });
    }
    return JSON.stringify({ emails });
  };
}
