import dgram from 'node:dgram';
import { startDnsmasq, type DnsPeer } from './dnsmasq';
import { startScriptedSmtp, testCertificate, type ScriptedSmtp, type SmtpScript } from './scripted-smtp';

/*
 * Mail servers as the big providers, gateways and real MTAs answer, for verdict tests. Each
 * scripted server replays replies quoted from real transcripts (source beside each) and listens
 * on its own loopback address (127.0.2.x) with one shared port; dnsmasq points <name>.test at it
 * through an MX host named as the provider names its own, so mailbox providers are recognised.
 */
const unknownUser = (address: string) => `550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`;
const onlyAlice = (reject: (address: string) => string | string[]) => (address: string) => (address.startsWith('alice@') ? '250 2.1.5 Ok' : reject(address));

export const REAL_WORLD_SERVERS: Record<string, { mx: string; script: SmtpScript }> = {
  // hbattat/verifyEmail#30: "554 delivery error: dd This user doesn't have a yahoo.com account
  // (alexwillis2011@yahoo.com) [-5] - mta1325.mail.gq1.yahoo.com" (no enhanced code)
  yahoo: {
    mx: 'mta5.am0.yahoodns.net',
    script: { rcpt: onlyAlice((a) => `554 delivery error: dd This user doesn't have a yahoo.com account (${a}) [-5] - mta1325.mail.gq1.yahoo.com`) },
  },
  // Postfix smtpd_recipient_limit = 1 in front of a catch-all: the second RCPT gets "452 4.5.3"
  onercpt: { mx: 'mx.onercpt.test', script: { rcpt: (_a, inTransaction) => (inTransaction >= 1 ? '452 4.5.3 Error: too many recipients' : '250 2.1.5 Ok') } },
  // Postfix smtpd_tls_security_level = encrypt: "530 5.7.0 Must issue a STARTTLS command first"
  tls: { mx: 'mx.tls.test', script: { tls: { ...testCertificate(), required: true }, rcpt: onlyAlice(unknownUser) } },
  // TLS required, but the handshake fails: the plain-text retry meets the 530
  badtls: { mx: 'mx.badtls.test', script: { brokenTls: true, tls: { ...testCertificate(), required: true }, rcpt: onlyAlice(unknownUser) } },
  // postscreen after-220 tests: the first connection of a new client gets "450 4.3.2 Service
  // currently unavailable" (postscreen(8), postscreen_greet_action); later ones get through
  postscreen: {
    mx: 'mx.postscreen.test',
    script: {
      banner: (n) => (n === 0 ? ['450 4.3.2 Service currently unavailable'] : ['220-mx.postscreen.test ESMTP', '220 ready']),
      greetPauseMs: 300,
      rcpt: onlyAlice(unknownUser),
    },
  },
  // Mimecast accepts every recipient at its edge unless recipient validation is on (Reacher #1626)
  mimecast: { mx: 'eu-smtp-inbound-1.mimecast.com', script: {} },
  // Microsoft 365 with directory-based edge blocking: "550 5.4.1 Recipient address rejected: Access denied"
  microsoft: {
    mx: 'contoso-test.mail.protection.outlook.com',
    script: {
      rcpt: onlyAlice(() => '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) [DB5EUR03FT012.eop-EUR03.prod.protection.outlook.com]'),
    },
  },
  // Gmail: "452-4.2.2 The email account that you tried to reach is over quota" for a full
  // mailbox; "550-5.1.1 The email account that you tried to reach does not exist" otherwise
  gmail: {
    mx: 'gmail-smtp-in.l.google.com',
    script: {
      rcpt: (a) =>
        a.startsWith('full@')
          ? [
              '452-4.2.2 The email account that you tried to reach is over quota. Please direct',
              '452 4.2.2 the recipient to https://support.google.com/mail/?p=OverQuotaTemp - gsmtp',
            ]
          : a.startsWith('alice@')
            ? '250 2.1.5 OK - gsmtp'
            : [
                '550-5.1.1 The email account that you tried to reach does not exist. Please try',
                '550 5.1.1 https://support.google.com/mail/?p=NoSuchUser - gsmtp',
              ],
    },
  },
  // Postfix reject_rbl_client: "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org"
  spamhaus: {
    mx: 'mx.spamhaus-listed.test',
    script: {
      rcpt: () => '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/192.0.2.1',
    },
  },
};

export interface RealWorldPeers {
  /**
   * dnsmasq with every <name>.test domain, canary.test, dangling.test (MX hosts that do not exist),
   * cnamed.test (MX through a CNAME), halfdead.test (equal preference, one dead), v6only.test (an
   * AAAA-only MX host on ::1) and servfail.test
   */
  dns: DnsPeer;
  /** dnsmasq that denies every name under com, net and test (a lying resolver) */
  lying: DnsPeer;
  /** the SMTP port every scripted server listens on */
  port: number;
  servers: Record<string, ScriptedSmtp>;
  stop(): Promise<void>;
}

export async function startRealWorldPeers(): Promise<RealWorldPeers> {
  const zone: string[] = [
    'host-record=canary.test,127.0.0.1',
    'mx-host=dangling.test,mx.gone.dangling.test,10',
    'mx-host=dangling.test,mx2.gone.dangling.test,20',
    // an MX host name that is a CNAME (RFC 5321 5.1 says it should not be; it works everywhere)
    'mx-host=cnamed.test,mx-alias.cnamed.test,10',
    'cname=mx-alias.cnamed.test,mta5.am0.yahoodns.net',
    // two MX hosts of equal preference, one of them dead (nothing listens on 127.0.2.250)
    'mx-host=halfdead.test,mx-dead.halfdead.test,10',
    'host-record=mx-dead.halfdead.test,127.0.2.250',
    'mx-host=halfdead.test,mta5.am0.yahoodns.net,10',
  ];
  // an upstream that answers every query with SERVFAIL (RCODE 2), which dnsmasq passes on
  const servfail = dgram.createSocket('udp4');
  servfail.on('message', (query, peer) => {
    const answer = Buffer.from(query);
    answer[2] = 0x81; // QR, opcode 0, RD
    answer[3] = 0x82; // RA, RCODE 2 SERVFAIL
    servfail.send(answer, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => servfail.bind(0, '127.0.0.1', resolve));
  zone.push(`server=/servfail.test/127.0.0.1#${servfail.address().port}`);
  // a domain whose only MX host name lies in that failing zone
  zone.push('mx-host=mxfail.test,mx.servfail.test,10');
  const servers: Record<string, ScriptedSmtp> = {};
  let port = 0;
  let n = 1;
  for (const [name, { mx, script }] of Object.entries(REAL_WORLD_SERVERS)) {
    const server = await startScriptedSmtp(script, { host: `127.0.2.${n++}`, port });
    port = server.port;
    servers[name] = server;
    zone.push(`mx-host=${name}.test,${mx},10`, `host-record=${mx},${server.host}`);
  }
  // an MX host with only an AAAA record, served on ::1
  const v6 = await startScriptedSmtp(
    { rcpt: (a) => (a.startsWith('alice@') ? '250 2.1.5 Ok' : `550 5.1.1 <${a}>: Recipient address rejected: User unknown`) },
    { host: '::1', port },
  );
  servers.v6only = v6;
  zone.push('mx-host=v6only.test,mx.v6only.test,10', 'host-record=mx.v6only.test,::1');
  const dns = await startDnsmasq(zone);
  const lying = await startDnsmasq([], ['com', 'net', 'test']);
  return {
    dns,
    lying,
    port,
    servers,
    async stop() {
      await Promise.all(Object.values(servers).map((s) => s.stop()));
      await dns.stop();
      await lying.stop();
      servfail.close();
    },
  };
}
