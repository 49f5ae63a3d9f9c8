import { readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';

/**
 * A small SMTP server that answers as a script says: for replaying what real servers send
 * (Yahoo's rejections, Microsoft 365, gateways, postscreen) where no such MTA can run here.
 * It speaks enough SMTP for the verifier (EHLO/HELO, STARTTLS, MAIL, RCPT, RSET, QUIT) and
 * records every command with the connection it came on and whether TLS was up.
 */
export interface SmtpScript {
  /** banner lines, or per connection (0-based); default "220 mx.scripted.test ESMTP" */
  banner?: string[] | ((connection: number) => string[]);
  /** hang up right after the banner when it is not a 220 (postscreen, 421) — default true */
  closeAfterRefusal?: boolean;
  /** wait before the banner (postscreen's greet pause); anything the client says first is a pregreet */
  greetPauseMs?: number;
  /** EHLO keywords after the greeting line (STARTTLS is added when `tls` is set) */
  extensions?: string[];
  /** offer STARTTLS with this key and certificate; `required`: refuse MAIL before it */
  tls?: { key: Buffer; cert: Buffer; required?: boolean };
  /** offer STARTTLS, say 220, then answer the handshake with plain text (a broken TLS stack) */
  brokenTls?: boolean;
  /** the reply to RCPT TO (the address; recipients already accepted in this transaction; connection); null: hang up without a word */
  rcpt?: (address: string, inTransaction: number, connection: number) => string | string[] | null;
}

export interface RecordedCommand {
  connection: number;
  tls: boolean;
  line: string;
}

export interface ScriptedSmtp {
  host: string;
  port: number;
  commands: RecordedCommand[];
  /** connections that spoke before the banner */
  pregreets: number;
  connections(): number;
  stop(): Promise<void>;
}

/** A self-signed certificate for mx.tls.test, made once with openssl for these tests (valid for 100 years). */
export function testCertificate(): { key: Buffer; cert: Buffer } {
  const dir = join(import.meta.dirname, '..', 'fixtures', 'tls');
  return { key: readFileSync(join(dir, 'mx.key')), cert: readFileSync(join(dir, 'mx.crt')) };
}

export async function startScriptedSmtp(script: SmtpScript, options: { host?: string; port?: number } = {}): Promise<ScriptedSmtp> {
  const sockets = new Set<net.Socket>();
  const commands: RecordedCommand[] = [];
  let connections = 0;
  let pregreets = 0;
  const host = options.host ?? '127.0.0.1';

  const server = net.createServer((raw) => {
    const connection = connections++;
    sockets.add(raw);
    raw.on('close', () => sockets.delete(raw));
    raw.on('error', () => {});
    let stream: net.Socket = raw;
    let secure = false;
    let greeted = false;
    let inTransaction = -1; // -1: no MAIL yet
    let partial = '';
    const send = (reply: string | string[]) => {
      if (!stream.destroyed)
        stream.write(
          [reply]
            .flat()
            .map((l) => `${l}\r\n`)
            .join(''),
        );
    };

    const onData = (chunk: Buffer) => {
      if (!greeted) {
        pregreets++;
        return;
      }
      partial += chunk.toString('utf8');
      const lines = partial.split('\r\n');
      partial = lines.pop()!;
      for (const line of lines) handle(line);
    };

    const handle = (line: string) => {
      commands.push({ connection, tls: secure, line });
      const verb = line.slice(0, 4).toUpperCase();
      const offersTls = (script.tls || script.brokenTls) && !secure;
      const extensions = [...(script.extensions ?? ['PIPELINING', '8BITMIME']), ...(offersTls ? ['STARTTLS'] : [])];
      if (verb === 'EHLO') send([...['mx.scripted.test', ...extensions].map((e, i, all) => `250${i < all.length - 1 ? '-' : ' '}${e}`)]);
      else if (verb === 'HELO') send('250 mx.scripted.test');
      else if (line.toUpperCase() === 'STARTTLS' && script.brokenTls) {
        send('220 2.0.0 Ready to start TLS');
        stream.off('data', onData);
        raw.once('data', () => send('500 5.5.0 this is not a TLS record')); // the answer to the ClientHello
      } else if (line.toUpperCase() === 'STARTTLS' && script.tls && !secure) {
        send('220 2.0.0 Ready to start TLS');
        stream.off('data', onData);
        const wrapped = new tls.TLSSocket(raw, { isServer: true, key: script.tls.key, cert: script.tls.cert });
        wrapped.on('error', () => raw.destroy());
        wrapped.on('data', onData);
        stream = wrapped;
        secure = true;
        inTransaction = -1;
      } else if (verb === 'MAIL') {
        // Postfix with smtpd_tls_security_level=encrypt
        if (script.tls?.required && !secure) send('530 5.7.0 Must issue a STARTTLS command first');
        else {
          inTransaction = 0;
          send('250 2.1.0 Ok');
        }
      } else if (verb === 'RCPT') {
        if (inTransaction < 0) return send('503 5.5.1 Error: need MAIL command');
        const address = /<([^>]*)>/.exec(line)?.[1] ?? '';
        const answer = script.rcpt?.(address, inTransaction, connection);
        if (answer === null) return void raw.destroy();
        const reply = answer ?? '250 2.1.5 Ok';
        if ([reply].flat().at(-1)!.startsWith('2')) inTransaction++;
        send(reply);
      } else if (verb === 'RSET') {
        inTransaction = -1;
        send('250 2.0.0 Ok');
      } else if (verb === 'QUIT') {
        send('221 2.0.0 Bye');
        stream.end();
      } else send('502 5.5.2 Error: command not recognized');
    };

    raw.on('data', onData);
    const banner = typeof script.banner === 'function' ? script.banner(connection) : (script.banner ?? ['220 mx.scripted.test ESMTP']);
    const greet = () => {
      greeted = true;
      send(banner);
      if (!banner.at(-1)!.startsWith('220') && script.closeAfterRefusal !== false) raw.end();
    };
    if (script.greetPauseMs) setTimeout(greet, script.greetPauseMs);
    else greet();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  return {
    host,
    port: (server.address() as net.AddressInfo).port,
    commands,
    get pregreets() {
      return pregreets;
    },
    connections: () => connections,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
