import { describe, expect, it } from 'vitest';
import { startScriptedSmtp, testCertificate } from '../../test/peers/scripted-smtp';
import { probeMailbox, type ProbeOptions } from './smtp';

// The SMTP conversation as real servers need it, against scripted servers over loopback.
const base = (port: number): ProbeOptions => ({
  ip: '127.0.0.1',
  port,
  heloName: 'verifier.test',
  mailFrom: 'check@verifier.test',
  mxHost: 'mx.tls.test',
  connectTimeoutMs: 1000,
  commandTimeoutMs: 2000,
  recipient: 'alice@tls.test',
  catchAllProbe: 'zz9q@tls.test',
});

const known = (address: string) => (address.startsWith('alice@') ? '250 2.1.5 Ok' : `550 5.1.1 <${address}>: Recipient address rejected: User unknown`);

describe('STARTTLS', () => {
  it('upgrades when offered, says EHLO again and asks everything over TLS', async () => {
    const server = await startScriptedSmtp({ tls: testCertificate(), rcpt: known });
    const result = await probeMailbox(base(server.port));
    expect(result).toMatchObject({ failure: null, tls: true, reply: { code: 250 }, catchAllReply: { code: 550, enhanced: '5.1.1' } });
    expect(server.commands.map((c) => `${c.tls ? 'tls ' : ''}${c.line}`).slice(0, 6)).toEqual([
      'EHLO verifier.test',
      'STARTTLS',
      'tls EHLO verifier.test',
      'tls MAIL FROM:<check@verifier.test>',
      'tls RCPT TO:<alice@tls.test>',
      'tls RCPT TO:<zz9q@tls.test>',
    ]);
    await server.stop();
  });

  it('gets real answers from a server that requires TLS (530 5.7.0 before STARTTLS)', async () => {
    const server = await startScriptedSmtp({ tls: { ...testCertificate(), required: true }, rcpt: known });
    expect((await probeMailbox(base(server.port))).reply).toMatchObject({ code: 250 });
    expect((await probeMailbox({ ...base(server.port), recipient: 'bob@tls.test' })).reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    await server.stop();
  });

  it('falls back to plain text on a new connection when the handshake fails, as MTAs do', async () => {
    // a broken TLS stack: it offers STARTTLS, says 220, then talks garbage instead of a handshake
    const broken = await startScriptedSmtp({ brokenTls: true, rcpt: known });
    const result = await probeMailbox(base(broken.port));
    expect(result).toMatchObject({ failure: null, tls: false, reply: { code: 250 } });
    expect(broken.connections()).toBe(2);
    expect(broken.commands.filter((c) => c.connection === 1).map((c) => c.line)).not.toContain('STARTTLS');
    await broken.stop();
  });
});

describe('greet pauses, banners and recipient limits', () => {
  it('waits out a greet pause without speaking first and reads a multi-line banner', async () => {
    // postscreen: "220-mx.example.test ESMTP" then a pause, then the last line; a client that
    // talks during the pause is a pregreet offender and gets dropped
    const server = await startScriptedSmtp({
      greetPauseMs: 600,
      banner: ['220-mx.scripted.test ESMTP', '220-Please wait', '220 mx.scripted.test ESMTP ready'],
      rcpt: known,
    });
    const result = await probeMailbox({ ...base(server.port), recipient: 'alice@tls.test' });
    expect(result).toMatchObject({ failure: null, reply: { code: 250 } });
    expect(server.pregreets).toBe(0);
    await server.stop();
  });

  it('asks the made-up address in a new transaction when the server takes one recipient per transaction', async () => {
    // Postfix with smtpd_recipient_limit = 1: "452 4.5.3 Error: too many recipients"
    const server = await startScriptedSmtp({
      rcpt: (address, inTransaction) => (inTransaction >= 1 ? '452 4.5.3 Error: too many recipients' : known(address)),
    });
    const result = await probeMailbox(base(server.port));
    expect(result).toMatchObject({ reply: { code: 250 }, catchAllReply: { code: 550, enhanced: '5.1.1' } });
    expect(server.commands.map((c) => c.line).slice(1, 7)).toEqual([
      'MAIL FROM:<check@verifier.test>',
      'RCPT TO:<alice@tls.test>',
      'RCPT TO:<zz9q@tls.test>',
      'RSET',
      'MAIL FROM:<check@verifier.test>',
      'RCPT TO:<zz9q@tls.test>',
    ]);
    expect(server.commands.some((c) => c.line === 'DATA')).toBe(false);
    await server.stop();
  });

  it("reports postscreen's first-connection refusal as the banner's answer", async () => {
    const server = await startScriptedSmtp({
      banner: (n) => (n === 0 ? ['450 4.3.2 Service currently unavailable'] : ['220 mx.scripted.test ESMTP']),
      rcpt: known,
    });
    expect(await probeMailbox(base(server.port))).toMatchObject({ failure: null, stage: 'banner', reply: { code: 450, enhanced: '4.3.2' } });
    expect(await probeMailbox(base(server.port))).toMatchObject({ failure: null, stage: 'rcpt', reply: { code: 250 } });
    await server.stop();
  });
});

describe('STARTTLS against a server that stalls the handshake', () => {
  it('ends at the conversation deadline as a time-out, without a second try in plain text', async () => {
    const net = await import('node:net');
    let connections = 0;
    // offers STARTTLS, says 220, then never answers the ClientHello
    const server = net.createServer((socket) => {
      connections++;
      socket.on('error', () => {});
      socket.write('220 mx.stall.test ESMTP\r\n');
      socket.once('data', () => {
        socket.write('250-mx.stall.test\r\n250 STARTTLS\r\n');
        socket.once('data', () => socket.write('220 2.0.0 Ready to start TLS\r\n'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    const result = await probeMailbox({
      ...base((server.address() as import('node:net').AddressInfo).port),
      commandTimeoutMs: 5000,
      conversationTimeoutMs: 700,
    });
    expect(result).toMatchObject({ failure: 'timeout', detail: 'the conversation took longer than 700 ms' });
    expect(Date.now() - started).toBeLessThan(4000); // the 700 ms deadline (as its detail says), before the 5 s command timeout
    expect(connections).toBe(1);
    server.close();
  });
});
