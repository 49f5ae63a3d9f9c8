/**
 * Who runs a domain's mailboxes, read from its MX host names. No maintained npm list maps MX
 * hosts to providers (email-providers, used in lists.ts, lists free-mail domains, not MX hosts),
 * so this is a small table of the providers and gateways that carry most of the world's mail.
 * Each suffix is matched on a label boundary of the MX host name.
 *
 * `acceptsAllAtEdge`: the edge answers RCPT before (or without) looking the mailbox up, so a
 * 250 proves nothing unless the made-up address was refused:
 * - Microsoft 365 tenants without directory-based edge blocking accept every recipient and bounce
 *   later (Reacher #1185); with it they refuse with "550 5.4.1 ... Access denied".
 * - Yahoo / AOL refuse unknown users ("554 delivery error: dd ..."), but accept disabled and some
 *   unknown accounts at RCPT (AfterShip email-verifier #55/#57: Yahoo answers are unreliable).
 * - Security gateways (Proofpoint, Mimecast, Barracuda, Cisco, Trend Micro) relay to a mail
 *   server behind them; unless they are set up to validate recipients they accept every RCPT and
 *   hide the mailbox (Reacher #1626).
 * A real rejection from any of them is still a rejection.
 */
export interface MailboxProvider {
  /** stable identifier, shown as `mailbox_provider` ("google", "microsoft", "mimecast") */
  id: string;
  name: string;
  kind: 'mailbox' | 'gateway';
  acceptsAllAtEdge: boolean;
}

const TABLE: [suffixes: string[], provider: MailboxProvider][] = [
  [
    ['google.com', 'googlemail.com', 'gmail-smtp-in.l.google.com', 'smtp.google.com'],
    { id: 'google', name: 'Google (Gmail, Workspace)', kind: 'mailbox', acceptsAllAtEdge: false },
  ],
  [
    ['mail.protection.outlook.com', 'mail.protection.office365.us', 'olc.protection.outlook.com', 'hotmail.com', 'outlook.com'],
    { id: 'microsoft', name: 'Microsoft 365 / Outlook', kind: 'mailbox', acceptsAllAtEdge: true },
  ],
  [['yahoodns.net', 'yahoo.com', 'aol.com', 'mx.aol.com'], { id: 'yahoo', name: 'Yahoo / AOL', kind: 'mailbox', acceptsAllAtEdge: true }],
  [['icloud.com', 'me.com', 'mac.com'], { id: 'apple', name: 'Apple iCloud', kind: 'mailbox', acceptsAllAtEdge: false }],
  [['zoho.com', 'zoho.eu', 'zoho.in', 'zohomail.com'], { id: 'zoho', name: 'Zoho Mail', kind: 'mailbox', acceptsAllAtEdge: false }],
  [['yandex.net', 'yandex.ru'], { id: 'yandex', name: 'Yandex', kind: 'mailbox', acceptsAllAtEdge: false }],
  [['mail.ru'], { id: 'mailru', name: 'Mail.ru', kind: 'mailbox', acceptsAllAtEdge: false }],
  [
    ['gmx.net', 'gmx.com', 'web.de', 'mail.com', '1and1.com', 'ionos.com', 'kundenserver.de'],
    { id: 'gmx', name: 'GMX / Web.de (United Internet)', kind: 'mailbox', acceptsAllAtEdge: false },
  ],
  [['protonmail.ch', 'proton.me'], { id: 'proton', name: 'Proton Mail', kind: 'mailbox', acceptsAllAtEdge: false }],
  [['messagingengine.com', 'fastmail.com'], { id: 'fastmail', name: 'Fastmail', kind: 'mailbox', acceptsAllAtEdge: false }],
  [['pphosted.com', 'ppe-hosted.com', 'proofpoint.com'], { id: 'proofpoint', name: 'Proofpoint', kind: 'gateway', acceptsAllAtEdge: true }],
  [['mimecast.com', 'mimecast.co.za', 'mimecast-offshore.com'], { id: 'mimecast', name: 'Mimecast', kind: 'gateway', acceptsAllAtEdge: true }],
  [['barracudanetworks.com', 'ess.barracudanetworks.com', 'cudamail.com'], { id: 'barracuda', name: 'Barracuda', kind: 'gateway', acceptsAllAtEdge: true }],
  [['iphmx.com', 'iphmx.eu'], { id: 'cisco', name: 'Cisco Secure Email (IronPort)', kind: 'gateway', acceptsAllAtEdge: true }],
  [
    ['tmes.trendmicro.com', 'tmes.trendmicro.eu', 'trendmicro.com', 'trendmicro.eu'],
    { id: 'trendmicro', name: 'Trend Micro Email Security', kind: 'gateway', acceptsAllAtEdge: true },
  ],
];

/**
 * The provider behind these MX hosts (most preferred first), or null when none is known. The most
 * preferred known host decides: a gateway in front of Microsoft 365 is what the verifier talks to.
 */
export function mailboxProviderOf(mxHosts: string[]): MailboxProvider | null {
  for (const host of mxHosts) {
    const name = host.toLowerCase().replace(/\.$/, '');
    for (const [suffixes, provider] of TABLE) {
      if (suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) return provider;
    }
  }
  return null;
}
