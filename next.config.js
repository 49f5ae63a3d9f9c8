// A self-hosted service does not phone home: Next.js telemetry stays off unless an operator opts in
// (the npm scripts set the same before the CLI starts, which is when `next build` reads it).
process.env.NEXT_TELEMETRY_DISABLED ??= '1';

const dev = process.env.NODE_ENV === 'development';

/**
 * What every page may load: only this origin. Next.js writes its hydration data as inline scripts,
 * so scripts need 'unsafe-inline' (a per-request nonce would make every page dynamic); dev mode's
 * React also needs eval. Nothing may frame the dashboard (clickjacking) or be loaded from elsewhere.
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self'${dev ? ' ws:' : ''}`,
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and server-only packages stay outside the bundle.
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', '@prisma/adapter-pg', 'pg', 'ioredis', 'rate-limiter-flexible'],
  poweredByHeader: false,
  async headers() {
    return [
      {
        // an unnamed group, not '/:path*': with a named parameter Next.js compiles every header value
        // holding a colon (the CSP's `data:`) with path-to-regexp on every request
        // (resolve-routes.js in next/dist/server/lib/router-utils); unnamed groups are not parameters
        source: '/(.*)',
        headers: [
          { key: 'Content-Security-Policy', value: contentSecurityPolicy },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
          { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=(), payment=()' },
        ],
      },
    ];
  },
};

export default nextConfig;
