// Container and CI health probe: exits 0 when GET /healthz on the admin listener answers 200.
// Plain Node (no curl in the slim image); the address comes from ADMIN_PORT (default 9090) on loopback.
const port = process.env.ADMIN_PORT || '9090';
const host = process.env.HEALTHCHECK_HOST || '127.0.0.1';
try {
  const res = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
