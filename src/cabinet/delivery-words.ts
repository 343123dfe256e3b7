/**
 * A delivery attempt's error as its owner reads it in the cabinet's delivery log: a plain
 * sentence, never what the webhook's host name resolved to (an internal name's private address is
 * the operator's network, not the merchant's business) nor a resolver's or socket's own words,
 * which can name addresses too. The operator's log and console keep the exact error.
 */
const WORDS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [
    /^refused target /,
    () =>
      "Not sent: the webhook URL's host is not a public address, and webhooks go to public addresses only (private ones are the operator's to allow).",
  ],
  [/resolves to no address$/, () => "Not sent: the webhook URL's host name has no address. Check the URL."],
  [/^DNS: timed out/, () => "Not sent: looking up the webhook URL's host name took too long. It is tried again."],
  [/^DNS: /, () => "Not sent: the webhook URL's host name could not be looked up. Check the URL."],
  [/^URL (.+)$/, (m) => `Not sent: the webhook URL ${m[1]}.`],
  [/^the merchant has no webhook endpoint$/, () => 'Not sent: no webhook URL is set.'],
  [
    /^timed out after (\d+) ms$/,
    (m) => `Your endpoint did not answer within ${Math.round(Number(m[1]) / 1000)} seconds.`,
  ],
];

export function ownerDeliveryError(error: string | null): string | null {
  if (error === null) return null;
  for (const [pattern, words] of WORDS) {
    const m = error.match(pattern);
    if (m) return words(m);
  }
  return 'Your endpoint could not be reached (the connection failed or was closed before an answer).';
}
