import { describe, expect, it } from 'vitest';
import { classifyReply, isTooManyRecipients, readReply } from './reply';
import { parseReply } from './smtp';

const meaning = (lines: string[], stage: 'rcpt' | 'banner' | 'mail' = 'rcpt') => classifyReply(parseReply(lines), stage);

describe('classifyReply on replies real servers send', () => {
  it('reads Gmail multiline unknown-user replies as rejected', () => {
    expect(
      meaning([
        '550-5.1.1 The email account that you tried to reach does not exist. Please try',
        "550-5.1.1 double-checking the recipient's email address for typos or",
        '550 5.1.1 https://support.google.com/mail/?p=NoSuchUser a1-20020a.5 - gsmtp',
      ]),
    ).toBe('rejected');
  });

  it('reads Outlook and Microsoft 365 rejections', () => {
    expect(meaning(['550 5.5.0 Requested action not taken: mailbox unavailable'])).toBe('rejected');
    expect(meaning(['550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup'])).toBe('rejected');
  });

  it('keeps greylisting transient and too-many-connections a domain back-off', () => {
    expect(meaning(['450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again'])).toBe('transient');
    expect(meaning(['421 4.7.0 Too many connections'], 'banner')).toBe('backoff');
    expect(meaning(['451 4.7.1 Too many connections from your IP, try again later'])).toBe('backoff');
  });

  it('does not blame the mailbox for blocks against us', () => {
    expect(meaning(['550 5.7.1 Service unavailable, Client host [192.0.2.1] blocked using Spamhaus'])).toBe('blocked');
    expect(meaning(['554 5.7.1 Relay access denied'], 'mail')).toBe('blocked');
  });

  it('parses the enhanced code out of the text', () => {
    expect(parseReply(['550 5.1.1 <a@b.c>: User unknown'])).toEqual({ code: 550, enhanced: '5.1.1', message: '<a@b.c>: User unknown' });
    expect(parseReply(['220 mx.example.test ESMTP'])).toEqual({ code: 220, enhanced: null, message: 'mx.example.test ESMTP' });
  });

  it("reads Yahoo's rejection without an enhanced code as a missing mailbox", () => {
    // hbattat/verifyEmail#30 quotes it from a real bounce
    expect(meaning(["554 delivery error: dd This user doesn't have a yahoo.com account (alexwillis2011@yahoo.com) [-5] - mta1325.mail.gq1.yahoo.com"])).toBe(
      'rejected',
    );
    expect(meaning(["554 delivery error: dd This user doesn't have a yahoo.fr account (email@yahoo.fr) [0] - mta1064.mail.ird.yahoo.com"])).toBe('rejected');
    // Yahoo's content refusal is about the message, never the mailbox
    expect(meaning(['554 Message not allowed - [299]'])).toBe('blocked');
  });

  it('never reads policy, TLS, reputation or throttling as a missing mailbox', () => {
    const aboutUs = [
      '530 5.7.0 Must issue a STARTTLS command first',
      '530 Must issue a STARTTLS command first',
      '554 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org',
      '550 Sender address rejected: Domain not found',
      '550 5.7.606 Access denied, banned sending IP [192.0.2.1]',
      '553 Recipient address rejected: your IP has a poor reputation',
      '550 Message rejected due to local policy',
      // Yahoo: "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list"
      "553 5.7.1 [BL21] Connections will not be accepted from 192.0.2.1, because the ip is in Spamhaus's list; see https://postmaster.yahooinc.com/error-codes",
      // Microsoft: "550 5.7.1 Unfortunately, messages from [x] weren't sent ... on our block list (S3150)"
      "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider since part of their network is on our block list (S3150).",
      // Gmail: "550-5.7.1 [x] Our system has detected that this message is likely unsolicited mail"
      '550 5.7.1 [192.0.2.1] Our system has detected that this message is likely unsolicited mail.',
    ];
    for (const line of aboutUs) expect([line, meaning([line])]).toEqual([line, 'blocked']);
    expect(readReply(parseReply(['530 5.7.0 Must issue a STARTTLS command first']), 'mail').subReason).toBe('tls_required');
    expect(readReply(parseReply(['554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org']), 'rcpt').subReason).toBe(
      'ip_blocklisted',
    );
    expect(readReply(parseReply(['550 Message rejected due to local policy']), 'rcpt').subReason).toBe('blocked_by_policy');
  });

  it('calls a full mailbox full, not rejected', () => {
    expect(meaning(['552 5.2.2 The email account that you tried to reach is over quota.'])).toBe('full');
    expect(meaning(['452 4.2.2 The email account that you tried to reach is over quota.'])).toBe('full');
    expect(meaning(['552 Requested mail action aborted: exceeded storage allocation'])).toBe('full');
    expect(meaning(['550 5.2.1 The email account that you tried to reach is disabled.'])).toBe('rejected');
  });

  it("keeps postscreen's first-connection refusal a come-back-later", () => {
    expect(meaning(['450 4.3.2 Service currently unavailable'], 'banner')).toBe('transient');
    expect(meaning(['421 4.3.2 Service currently unavailable'], 'banner')).toBe('backoff');
    // Yahoo's volume deferral: "421 4.7.0 [TSS04] Messages from x temporarily deferred due to unexpected volume or user complaints"
    expect(meaning(['421 4.7.0 [TSS04] Messages from 192.0.2.1 temporarily deferred due to unexpected volume or user complaints'])).toBe('backoff');
  });

  it('recognises a per-transaction recipient limit', () => {
    expect(isTooManyRecipients(parseReply(['452 4.5.3 Error: too many recipients']))).toBe(true);
    expect(isTooManyRecipients(parseReply(['452 Too many recipients']))).toBe(true);
    expect(isTooManyRecipients(parseReply(['452 4.2.2 Mailbox full']))).toBe(false);
    expect(isTooManyRecipients(parseReply(['450 4.2.0 Greylisted']))).toBe(false);
  });
});

describe('the replies issue 24 names (its "…" filled with an address or IP)', () => {
  const read = (line: string) => readReply(parseReply([line]), 'rcpt');
  it('reads each by whom it is about, never as a missing mailbox', () => {
    const cases: [string, string, string | null][] = [
      ['553 5.1.8 <bounce@sender.example>... Domain of sender address bounce@sender.example does not exist', 'blocked', 'sender_rejected'],
      ['550 5.1.0 <bounce@sender.example> sender rejected. AUP#MXRT', 'blocked', 'sender_rejected'],
      ['550 Unroutable sender address', 'blocked', 'sender_rejected'],
      ['550 Bad SPF records for [sender.example:192.0.2.1], see http://spf.pobox.com/', 'blocked', 'sender_rejected'],
      ['550 DMARC check failed', 'blocked', 'sender_rejected'],
      ['551 Server access mx.sender.example [192.0.2.1] forbidden by invalid RDNS record of your mail server', 'blocked', 'reverse_dns'],
      ['550 <bob@example.org> - 192.0.2.1 has sent to too many recipients this hour. IB607', 'transient', 'rate_limited'],
      ['550 Please turn on SMTP Authentication in your mail client.', 'blocked', 'auth_required'],
      [
        "550 5.7.1 Unfortunately, messages from [192.0.2.1] weren't sent. Please contact your Internet service provider. You can tell them that Hotmail does not relay dynamically-assigned IP ranges. too many unwanted messages",
        'blocked',
        'host_rejected',
      ],
      [
        '550-5.2.1 The user you are trying to contact is receiving mail at a rate that prevents additional messages from being delivered.',
        'transient',
        'rate_limited',
      ],
      ['522 5.2.0 Delivery failed: Over quota', 'full', null],
      ['550 5.3.5 <bob@example.org> Internal System Error', 'blocked', 'server_error'],
      ['554 5.3.0 <bob@example.org>: Recipient address rejected: Internal system error', 'blocked', 'server_error'],
      ['550 5.5.0 Service refuse. Veuillez essayer plus tard. service refused, please try later. LPN001_108', 'blocked', 'server_error'],
      ['550 Rejected', 'unclear', 'unclear_rejection'],
      ['550 Protocol violation', 'unclear', 'unclear_rejection'],
    ];
    for (const [line, meaning, subReason] of cases) expect([line, read(line)]).toEqual([line, { meaning, subReason }]);
  });

  it('still reads a missing mailbox or domain as rejected, whatever the code', () => {
    for (const line of [
      '550 5.1.1 <bob@example.org>: Recipient address rejected: User unknown in local recipient table',
      '550 Unrouteable address',
      "553 5.1.2 We weren't able to find the recipient domain.",
      '556 5.1.10 <bob@nullmx.example>: Recipient address rejected: Domain nullmx.example does not accept mail (nullMX)',
      '550 5.0.0 <bob@example.org>... User unknown',
      '550 sorry, no mailbox here by that name. (#5.7.17)',
    ])
      expect([line, read(line).meaning]).toEqual([line, 'rejected']);
  });
});

describe('deferrals that name us', () => {
  it('keep the retry and say whom they are about; greylisting and postscreen stay as they were', () => {
    const read = (line: string, stage: 'rcpt' | 'mail' = 'rcpt') => readReply(parseReply([line]), stage);
    // Postfix reject_unknown_client with its default 450 (smtpd_check.c)
    expect(read('450 4.7.1 <c135.kyoto.example.ne.jp[192.0.2.56]>: Client host rejected: cannot find your hostname, [192.0.2.56]')).toEqual({
      meaning: 'transient',
      subReason: 'reverse_dns',
    });
    // Gmail: "451 4.7.26 Unauthenticated email from x is not accepted due to domain's DMARC policy, but temporary DNS failures prevent authentication"
    expect(
      read(
        "451 4.7.26 Unauthenticated email from example.org is not accepted due to domain's DMARC policy, but temporary DNS failures prevent authentication.",
        'mail',
      ),
    ).toEqual({ meaning: 'transient', subReason: 'sender_rejected' });
    expect(read('452 Too many recipients received this hour')).toEqual({ meaning: 'transient', subReason: 'rate_limited' });
    expect(read('450 4.2.1 The user you are trying to contact is receiving mail too quickly. Please resend your message at a later time.')).toEqual({
      meaning: 'transient',
      subReason: 'rate_limited',
    });
    expect(read('450 4.2.0 <bob@grey.test>: Recipient address rejected: Greylisted, please try again')).toEqual({ meaning: 'transient', subReason: null });
    expect(read('451 4.3.0 Temporary lookup failure')).toEqual({ meaning: 'transient', subReason: null });
  });
});

describe('a reply that names our sender', () => {
  it('is about the sender, whatever it says of "unknown"', () => {
    const parties = { sender: 'check@verifier.test', recipient: 'bob@example.org' };
    expect(readReply(parseReply(['550 5.1.1 <check@verifier.test>... User unknown']), 'rcpt', parties)).toEqual({
      meaning: 'blocked',
      subReason: 'sender_rejected',
    });
    expect(readReply(parseReply(['550 5.7.1 <check@verifier.test>... Access denied']), 'rcpt', parties)).toEqual({
      meaning: 'blocked',
      subReason: 'sender_rejected',
    });
    // naming the recipient too, it is the recipient's
    expect(readReply(parseReply(['550 5.1.1 <bob@example.org>... User unknown (from check@verifier.test)']), 'rcpt', parties).meaning).toBe('rejected');
    expect(readReply(parseReply(['550 5.1.1 <bob@example.org>... User unknown']), 'rcpt', parties).meaning).toBe('rejected');
  });
});

describe('replies met after the corpus was read', () => {
  it('reads qmail and inactive-user refusals', () => {
    expect(readReply(parseReply(["553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)"]), 'rcpt')).toEqual({
      meaning: 'blocked',
      subReason: 'blocked_by_policy',
    });
    expect(readReply(parseReply(['553 Invalid/inactive user.']), 'rcpt').meaning).toBe('rejected');
    expect(readReply(parseReply(['554 5.7.1 - ERROR: Mail refused']), 'rcpt')).toEqual({ meaning: 'blocked', subReason: 'blocked_by_policy' });
    expect(readReply(parseReply(['554 5.7.1 [P4] Message blocked due to spam content in the message.']), 'rcpt')).toEqual({
      meaning: 'blocked',
      subReason: 'message_rejected',
    });
  });
});
