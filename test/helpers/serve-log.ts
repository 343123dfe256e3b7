/** Reading `paygate serve`'s stdout, which carries JSON log lines only when it is not a terminal. */

/** The /v1 base URL from serve's `paygate serving /v1` log line; null for any other line. */
export function servedUrl(line: string): string | null {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; url?: unknown };
    return entry.msg === 'paygate serving /v1' && typeof entry.url === 'string' ? entry.url : null;
  } catch {
    return null;
  }
}
