import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, requireBinary, uidOf } from './common';

export interface PostfixPeer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export interface PostfixOptions {
  /** existing mailboxes, e.g. alice@example.test */
  mailboxes: string[];
  /** domains whose every address is accepted */
  catchAllDomains?: string[];
  /** domains greylisted once per (sender, recipient domain), like postgrey with delay 0 */
  greylistDomains?: string[];
  /** domains answered "421 4.7.0 Too many connections" (Postfix then disconnects) */
  busyDomains?: string[];
  port?: number;
  /**
   * postscreen in front of smtpd, as big installations run it: a "220-" teaser banner, a greet
   * pause of `greetWaitS` (a client that talks first is a pregreet offender), and with
   * `afterGreetingTests` the pipelining / non-SMTP / bare-newline tests, which a new client passes
   * only to be told "450 4.3.2 Service currently unavailable" and come back (postscreen(8)).
   */
  postscreen?: { greetWaitS: number; afterGreetingTests?: boolean };
  /** STARTTLS with this key and certificate (PEM); `required`: smtpd_tls_security_level = encrypt */
  tls?: { key: Buffer; cert: Buffer; required?: boolean };
}

/**
 * A private Postfix instance: own config_directory, queue and data dirs in a temp dir,
 * listening on 127.0.0.1:<port>. Nothing under /etc/postfix is touched. Needs root (it is here).
 */
export async function startPostfix(options: PostfixOptions): Promise<PostfixPeer> {
  requireBinary('/usr/sbin/postfix', 'postfix');
  const dir = mkdtempSync(join(tmpdir(), 'ev-postfix-'));
  chmodSync(dir, 0o755); // Postfix daemons run as the postfix user and must reach their dirs
  const [etc, queue, data, mail] = ['etc', 'queue', 'data', 'mail'].map((d) => join(dir, d));
  for (const d of [etc, queue, data, mail]) mkdirSync(d);
  const owner = uidOf('postfix');
  chownSync(data, owner.uid, owner.gid);
  chownSync(mail, owner.uid, owner.gid);
  const port = options.port ?? (await freePort());
  const policy = await startGreylistPolicy(options.greylistDomains ?? []);
  const catchAll = options.catchAllDomains ?? [];
  const domains = [
    ...new Set([...options.mailboxes.map((m) => m.split('@')[1]), ...catchAll, ...(options.greylistDomains ?? []), ...(options.busyDomains ?? [])]),
  ];

  writeFileSync(
    join(etc, 'vmailbox'),
    [...options.mailboxes.map((m) => `${m} ${m.replace('@', '/')}/`), ...catchAll.map((d) => `@${d} ${d}/catchall/`), ''].join('\n'),
  );
  writeFileSync(join(etc, 'rcpt_access'), (options.busyDomains ?? []).map((d) => `${d} 421 4.7.0 Too many connections, try again later\n`).join(''));
  if (options.tls) {
    writeFileSync(join(etc, 'tls.key'), options.tls.key, { mode: 0o600 });
    writeFileSync(join(etc, 'tls.crt'), options.tls.cert);
  }
  const tls = options.tls
    ? `
smtpd_tls_cert_file = ${join(etc, 'tls.crt')}
smtpd_tls_key_file = ${join(etc, 'tls.key')}
smtpd_tls_security_level = ${options.tls.required ? 'encrypt' : 'may'}
`
    : '';
  const ps = options.postscreen;
  // loopback is in mynetworks, which postscreen would let through untested: no access list
  const postscreen = ps
    ? `
postscreen_access_list =
postscreen_greet_wait = ${ps.greetWaitS}s
postscreen_greet_action = enforce
postscreen_cache_map = btree:${join(data, 'postscreen_cache')}
postscreen_pipelining_enable = ${ps.afterGreetingTests ? 'yes' : 'no'}
postscreen_non_smtp_command_enable = ${ps.afterGreetingTests ? 'yes' : 'no'}
postscreen_bare_newline_enable = ${ps.afterGreetingTests ? 'yes' : 'no'}
`
    : '';
  writeFileSync(
    join(etc, 'main.cf'),
    `${tls}${postscreen}
compatibility_level = 3.6
queue_directory = ${queue}
data_directory = ${data}
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
mail_owner = postfix
setgid_group = postdrop
maillog_file_prefixes = ${dir}
maillog_file = ${join(dir, 'maillog')}
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mx.example.test
mydestination =
local_recipient_maps =
alias_maps =
alias_database =
relay_domains =
mynetworks = 127.0.0.0/8
smtputf8_enable = yes
default_process_limit = 300
smtpd_client_connection_count_limit = 0
virtual_mailbox_domains = ${domains.join(', ')}
virtual_mailbox_maps = texthash:${join(etc, 'vmailbox')}
virtual_mailbox_base = ${mail}
virtual_uid_maps = static:${owner.uid}
virtual_gid_maps = static:${owner.gid}
smtpd_reject_unlisted_recipient = yes
smtpd_relay_restrictions = reject_unauth_destination
smtpd_recipient_restrictions = check_recipient_access texthash:${join(etc, 'rcpt_access')},
  check_policy_service inet:127.0.0.1:${policy.port}, reject_unauth_destination
# in_flow_delay (default 1s) throttles the cleanup opened at each accepted RCPT when no mail
# flows out of the queue, which a verifier that never sends DATA causes: the bench saw 1 s
# RCPT replies. Real MXs have their own pacing; the peer should not add this one.
in_flow_delay = 0s
`,
  );
  const listener = ps
    ? `127.0.0.1:${port} inet n - n - 1 postscreen\nsmtpd pass - - n - - smtpd\ndnsblog unix - - n - 0 dnsblog\ntlsproxy unix - - n - 0 tlsproxy`
    : `127.0.0.1:${port} inet n - n - - smtpd`;
  const tlsmgr = options.tls ? 'tlsmgr unix - - n 1000? 1 tlsmgr' : '';
  writeFileSync(
    join(etc, 'master.cf'),
    `
${listener}
${tlsmgr}
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
virtual   unix  -       n       n       -       -       virtual
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
`,
  );
  const postfix = (cmd: string) => execFileSync('/usr/sbin/postfix', ['-c', etc, cmd], { stdio: 'pipe', env: { ...process.env, MAIL_CONFIG: etc } });
  try {
    postfix('start');
  } catch (error) {
    policy.server.close();
    const e = error as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(`postfix start failed in ${dir}: ${e.stderr}${e.stdout} ${error}`);
  }
  await waitForListener('127.0.0.1', port);
  return {
    host: '127.0.0.1',
    port,
    async stop() {
      try {
        postfix('stop');
      } catch {
        /* already stopped */
      }
      policy.server.close();
      // EV_KEEP_PEERS=1 keeps the temp dir, to read its maillog after a failing test
      if (!process.env.EV_KEEP_PEERS) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Postfix policy delegation server (the protocol postgrey speaks): the first request for a
 * (sender, recipient domain) pair is deferred, later ones pass.
 */
async function startGreylistPolicy(domains: string[]): Promise<{ server: net.Server; port: number }> {
  const seen = new Set<string>();
  const server = net.createServer((socket) => {
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const attrs = Object.fromEntries(
          buffer
            .slice(0, end)
            .split('\n')
            .map((l) => l.split(/=(.*)/s, 2)),
        );
        buffer = buffer.slice(end + 2);
        const domain =
          String(attrs.recipient ?? '')
            .split('@')[1]
            ?.toLowerCase() ?? '';
        const key = `${attrs.sender}/${domain}`;
        let action = 'DUNNO';
        if (domains.includes(domain) && !seen.has(key)) {
          seen.add(key);
          action = '450 4.2.0 Greylisted, please try again';
        }
        socket.write(`action=${action}\n\n`);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

async function waitForListener(host: string, port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, host, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`postfix did not listen on ${host}:${port}`);
}
