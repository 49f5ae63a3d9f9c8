import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/**
 * Playwright's globalSetup: a local SMTP server the app's relay (EV_SMTP_URL in playwright.config.ts)
 * delivers to. Each message is written whole to E2E_MAIL_DIR, named after its first recipient, for
 * the specs to read (e2e/mail.ts). Plain SMTP on 127.0.0.1, no TLS, no authentication: the relay's
 * STARTTLS and AUTH are the invitations tests' business (test/api), not the dashboard's.
 */
export default async function startMailSink(): Promise<() => Promise<void>> {
  const dir = process.env.E2E_MAIL_DIR!;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const to = session.envelope.rcptTo[0]?.address ?? 'unknown';
        writeFileSync(join(dir, `${to.toLowerCase()}.${++count}.eml`), Buffer.concat(chunks));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(process.env.E2E_SMTP_PORT), '127.0.0.1', () => resolve());
  });
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
