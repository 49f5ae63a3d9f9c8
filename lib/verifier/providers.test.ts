import { describe, expect, it } from 'vitest';
import { mailboxProviderOf } from './providers';

describe('mailboxProviderOf', () => {
  it('names the provider behind real MX host names', () => {
    const cases: [string[], string | null][] = [
      [['gmail-smtp-in.l.google.com', 'alt1.gmail-smtp-in.l.google.com'], 'google'],
      [['aspmx.l.google.com'], 'google'],
      [['contoso-com.mail.protection.outlook.com'], 'microsoft'],
      [['outlook-com.olc.protection.outlook.com'], 'microsoft'],
      [['mta5.am0.yahoodns.net'], 'yahoo'],
      [['mx-aol.mail.gm0.yahoodns.net'], 'yahoo'],
      [['mx01.mail.icloud.com'], 'apple'],
      [['mx.zoho.com'], 'zoho'],
      [['mx.yandex.net'], 'yandex'],
      [['mxs.mail.ru'], 'mailru'],
      [['mx00.emig.gmx.net'], 'gmx'],
      [['mx-ha03.web.de'], 'gmx'],
      [['mail.protonmail.ch'], 'proton'],
      [['in1-smtp.messagingengine.com'], 'fastmail'],
      [['mx0a-00123401.pphosted.com'], 'proofpoint'],
      [['eu-smtp-inbound-1.mimecast.com'], 'mimecast'],
      [['d123.ess.barracudanetworks.com'], 'barracuda'],
      [['mx1.hc1234-56.iphmx.com'], 'cisco'],
      [['example-com.in.tmes.trendmicro.com'], 'trendmicro'],
      [['mx.example.test'], null],
      // a suffix matches on a label boundary only
      [['mx.notgoogle.com'], null],
      [[], null],
    ];
    for (const [hosts, id] of cases) expect([hosts, mailboxProviderOf(hosts)?.id ?? null]).toEqual([hosts, id]);
  });

  it('lets the most preferred host decide and flags edges that accept every recipient', () => {
    expect(mailboxProviderOf(['mx.example.test', 'aspmx.l.google.com'])?.id).toBe('google');
    expect(mailboxProviderOf(['us-smtp-inbound-1.mimecast.com', 'contoso-com.mail.protection.outlook.com'])).toMatchObject({
      id: 'mimecast',
      kind: 'gateway',
      acceptsAllAtEdge: true,
    });
    expect(mailboxProviderOf(['gmail-smtp-in.l.google.com'])).toMatchObject({ acceptsAllAtEdge: false });
  });
});
