import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { startHostileSmtp, type HostileKind } from '../../test/peers/hostile-smtp';
import { startTcpPeer } from '../../test/peers/tcp';
import { probeMailbox, type ProbeOptions } from './smtp';
import { createVerifier } from './verify';

let postfix: PostfixPeer;
beforeAll(async () => {
  postfix = await startPostfix({ mailboxes: ['alice@example.test', 'jöhn@example.test'] });
});
afterAll(async () => {
  await postfix?.stop();
});

const base = (port: number): ProbeOptions => ({
  ip: '127.0.0.1',
  port,
  heloName: 'verifier.test',
  mailFrom: 'check@verifier.test',
  connectTimeoutMs: 1000,
  commandTimeoutMs: 1000,
  recipient: 'alice@example.test',
  catchAllProbe: 'zz9q@example.test',
});

describe('probeMailbox against Postfix', () => {
  it('gets 250 for the mailbox and 550 5.1.1 for the made-up one', async () => {
    const result = await probeMailbox(base(postfix.port));
    expect(result).toMatchObject({ failure: null, stage: 'rcpt', reply: { code: 250, enhanced: '2.1.5' }, catchAllReply: { code: 550, enhanced: '5.1.1' } });
  });

  it('sends SMTPUTF8 for a UTF-8 mailbox', async () => {
    const result = await probeMailbox({ ...base(postfix.port), recipient: 'jöhn@example.test', catchAllProbe: null });
    expect(result.reply).toMatchObject({ code: 250, enhanced: '2.1.5' });
  });

  it('asks the catch-all question after a rejection too (other addresses of the domain wait for it)', async () => {
    const result = await probeMailbox({ ...base(postfix.port), recipient: 'nobody@example.test' });
    expect(result.reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    expect(result.catchAllReply).toMatchObject({ code: 550, enhanced: '5.1.1' });
  });
});

describe('probeMailbox against broken servers', () => {
  it('reports no_connect when nothing listens', async () => {
    const closed = await startTcpPeer('drop', '127.0.0.1', 0);
    const port = closed.port;
    await closed.stop();
    expect((await probeMailbox(base(port))).failure).toBe('no_connect');
  });

  it('reports a missing banner as timeout and a hang-up as dropped', async () => {
    const silent = await startTcpPeer('silent', '127.0.0.1', 0);
    expect(await probeMailbox(base(silent.port))).toMatchObject({ failure: 'timeout', stage: 'banner' });
    await silent.stop();
    const drop = await startTcpPeer('drop', '127.0.0.1', 0);
    expect(await probeMailbox(base(drop.port))).toMatchObject({ failure: 'dropped', stage: 'banner' });
    await drop.stop();
  });

  it('reads multiline replies and falls back to HELO when EHLO is refused', async () => {
    // an old-style server: "500 5.5.1 Command unrecognized: EHLO" (Sendmail wording)
    const seen: string[] = [];
    const server = net.createServer((socket) => {
      socket.write('220-old.example.test ESMTP\r\n220 welcome\r\n');
      socket.on('data', (chunk) => {
        for (const line of chunk.toString().split('\r\n').filter(Boolean)) {
          seen.push(line);
          if (line.startsWith('EHLO')) socket.write('500 5.5.1 Command unrecognized: EHLO\r\n');
          else if (line.startsWith('HELO')) socket.write('250 old.example.test\r\n');
          else if (line.startsWith('MAIL')) socket.write('250 2.1.0 Sender ok\r\n');
          else if (line.startsWith('RCPT')) socket.write('250-2.1.5 Recipient\r\n250 2.1.5 ok\r\n');
          else if (line === 'QUIT') socket.end('221 2.0.0 bye\r\n');
          else socket.write('250 2.0.0 ok\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const result = await probeMailbox({ ...base((server.address() as net.AddressInfo).port), catchAllProbe: null });
    expect(result).toMatchObject({ failure: null, reply: { code: 250, enhanced: '2.1.5', message: 'Recipient ok' } });
    expect(seen.slice(0, 4)).toEqual(['EHLO verifier.test', 'HELO verifier.test', 'MAIL FROM:<check@verifier.test>', 'RCPT TO:<alice@example.test>']);
    expect(seen).not.toContain('DATA');
    server.close();
  });
});

describe('probeMailbox against hostile servers (lib/verifier/smtp.ts SMTP_LIMITS)', () => {
  const cases: [HostileKind, string, RegExp][] = [
    ['endless-continuation', 'protocol', /reply of more than 100 lines/],
    ['banner-without-newline', 'protocol', /reply line longer than 2048 bytes/],
    ['many-short-lines', 'protocol', /reply of more than 100 lines/],
    ['greet-flood', 'protocol', /replies before it was asked|more than 131072 bytes/],
  ];
  for (const [kind, failure, detail] of cases) {
    it(`cuts off ${kind} with failure ${failure}, reading a bounded number of bytes`, async () => {
      const hostile = await startHostileSmtp(kind);
      const result = await probeMailbox({ ...base(hostile.port), commandTimeoutMs: 5000 });
      expect(result.failure).toBe(failure);
      expect(result.detail).toMatch(detail);
      expect(result.reply).toBeNull();
      await hostile.stop();
    });
  }

  it('ends a trickling server at the conversation deadline even though every line beats the command timeout', async () => {
    const hostile = await startHostileSmtp('trickle', { trickleMs: 50 });
    const started = Date.now();
    const result = await probeMailbox({ ...base(hostile.port), commandTimeoutMs: 60_000, conversationTimeoutMs: 1500 });
    expect(result).toMatchObject({ failure: 'timeout', stage: 'banner', detail: 'the conversation took longer than 1500 ms' });
    expect(Date.now() - started).toBeLessThan(15_000); // the 1.5 s deadline (as its detail says), not the 60 s command timeout
    await hostile.stop();
  });

  it('answers unknown (never undeliverable) with the violation in the evidence', async () => {
    const hostile = await startHostileSmtp('endless-continuation');
    const verifier = createVerifier({
      dns: {
        mailRoute: async () => ({ kind: 'mx', hosts: [{ exchange: 'mx.hostile.test', priority: 10 }] }),
        addresses: async () => ({ ok: true, ips: ['127.0.0.1'] }),
      },
      smtp: { port: hostile.port, heloName: 'verifier.test', mailFrom: 'check@verifier.test', connectTimeoutMs: 1000, commandTimeoutMs: 5000 },
      allowPrivateNetworks: true,
      perDomainConcurrency: 2,
      globalConcurrency: 10,
    });
    const { verdict } = await verifier.verify('someone@hostile.test');
    expect(verdict).toMatchObject({ status: 'unknown', valid: true, reason: 'unavailable_smtp' });
    expect(verdict.evidence).toMatchObject({ mx_host: 'mx.hostile.test', smtp_code: null, smtp_failure: 'protocol: a reply of more than 100 lines' });
    expect(hostile.stats().bytesSent).toBeLessThan(64 * 1024 * 1024);
    await hostile.stop();
  });
});
