import { describe, expect, it } from 'vitest';
import { classifyReply } from './reply';
import { parseReply } from './smtp';

const meaning = (lines: string[], stage: 'rcpt' | 'banner' | 'mail' = 'rcpt') => classifyReply(parseReply(lines), stage);

describe('classifyReply on replies real servers send', () => {
  it('reads Gmail multiline unknown-user replies as rejected', () => {
    expect(meaning([
      '550-5.1.1 The email account that you tried to reach does not exist. Please try',
      '550-5.1.1 double-checking the recipient\'s email address for typos or',
      '550 5.1.1 https://support.google.com/mail/?p=NoSuchUser a1-20020a.5 - gsmtp',
    ])).toBe('rejected');
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
});
