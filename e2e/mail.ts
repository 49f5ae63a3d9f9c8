import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';

/** The body of the MIME message as a reader sees it: quoted-printable and base64 parts decoded. */
function decoded(raw: string): string {
  // quoted-printable's raw text has `token=3D…`: only its decoded text is searched
  const parts = [
    /content-transfer-encoding:\s*quoted-printable/i.test(raw)
      ? raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      : raw,
  ];
  if (/content-transfer-encoding:\s*base64/i.test(raw)) {
    for (const block of raw.match(/(?:^[A-Za-z0-9+/=]{16,}\r?\n)+/gm) ?? []) parts.push(Buffer.from(block.replace(/\s+/g, ''), 'base64').toString('utf8'));
  }
  return parts.join('\n');
}

/**
 * Waits for a mail the local SMTP server (e2e/mail-sink.ts) received for `to` and answers the
 * invitation link in the latest one (the relay has the message before the API answers the invitation).
 */
export async function invitationLinkFromMail(to: string): Promise<string> {
  const dir = process.env.E2E_MAIL_DIR!;
  let link = '';
  await expect(async () => {
    const number = (name: string) => Number(name.split('.').at(-2));
    const file = readdirSync(dir)
      .filter((name) => name.startsWith(`${to.toLowerCase()}.`))
      .sort((a, b) => number(a) - number(b))
      .at(-1);
    expect(file, `a mail to ${to}`).toBeTruthy();
    const text = decoded(readFileSync(join(dir, file!), 'utf8'));
    const found = text.match(/https?:\/\/[^\s"<>]+\/join\?token=[A-Za-z0-9_-]+/);
    expect(found, 'an invitation link in the mail').toBeTruthy();
    link = found![0];
  }).toPass({ timeout: 15_000 });
  return link;
}
