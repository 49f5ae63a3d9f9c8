/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and server-only packages stay outside the bundle.
  serverExternalPackages: ['better-sqlite3', '@prisma/adapter-better-sqlite3', '@prisma/adapter-pg', 'pg', 'ioredis', 'rate-limiter-flexible'],
  poweredByHeader: false,
};

export default nextConfig;
