import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostfix, type PostfixPeer } from '../../test/peers/postfix';
import { startTcpPeer } from '../../test/peers/tcp';
import { probeMailbox, type ProbeOptions } from './smtp';

let postfix: PostfixPeer;
beforeAll(async () => { postfix = await startPostfix({ mailboxes: ['alice@example.test', 'jöhn@example.test'] }); });
afterAll(async () => { await postfix?.stop(); });

const base = (port: number): ProbeOptions => ({
  ip: '127.0.0.1', port, heloName: 'verifier.test', mailFrom: 'check@verifier.test',
  connectTimeoutMs: 1000, commandTimeoutMs: 1000, recipient: 'alice@example.test', catchAllProbe: 'zz9q@example.test',
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

  it('skips the catch-all question when the address was rejected', async () => {
    const result = await probeMailbox({ ...base(postfix.port), recipient: 'nobody@example.test' });
    expect(result.reply).toMatchObject({ code: 550, enhanced: '5.1.1' });
    expect(result.catchAllReply).toBeNull();
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
