// The words of SMTP rejections, by who they are about: the table readRejection (rejection.ts)
// reads a reply's text with after its codes.

/**
 * Who a rejection is about. Only `mailbox` and `domain` say anything about the address; the others
 * are about us (sender, host, rate, auth), the message or the server, and `unclear` says nothing.
 */
export type Subject =
  | 'mailbox'
  | 'domain'
  | 'full'
  | 'mailbox_rate'
  | 'sender'
  | 'auth'
  | 'rate'
  | 'host'
  | 'protocol'
  | 'message'
  | 'server'
  | 'policy'
  | 'unclear';

// Each rule quotes a reply it was written for; test/fixtures/rejections holds them and hundreds more.
export const REJECTION_RULES: Record<Exclude<Subject, 'unclear'>, RegExp> = {
  // Gmail: "550-5.2.1 The user you are trying to contact is receiving mail at a rate that prevents
  // additional messages from being delivered", "450 4.2.1 The user you are trying to contact is
  // receiving mail too quickly": the mailbox exists and is busy
  mailbox_rate: /receiving mail (at a rate|too (fast|quickly))|receiving too much mail|too many messages for this (user|recipient|mailbox)/i,
  // "552 5.2.2 Over quota", "552 Error: disk quota exceeded", "550 5.2.2 STOREDRV.Deliver: mailbox
  // full", Gmail "552-5.2.2 The recipient's inbox is out of storage space", "550 user has too many
  // messages on the server", "552 Requested mail action aborted: exceeded storage allocation"
  full: /over ?quota|quota exceeded|exceeded (the |its )?quota|mailbox (is )?full|inbox is full|out of storage|insufficient (system )?storage|exceeded storage|too many messages on the server/i,
  // "550-Please turn on SMTP Authentication in your mail client", "550 5.7.1 RESOLVER.RST.AuthRequired;
  // authentication required", "550 Unauthenticated senders not allowed", "530 5.7.0 Must issue a
  // STARTTLS command first", Gmail "535 5.7.1 Username and Password not accepted", POP before SMTP:
  // "550 5.7.1 Relaying denied: You must check for new mail before sending mail."; Exim "550
  // unacceptable cipher ...", "550 certificate not verified: peerdn=...", "435 Unable to authenticate
  // at present", OpenSMTPD "530 5.5.1 Invalid command: Must issue an AUTH command first"
  auth: /unacceptable cipher|certificate not verified|unable to authenticate|\bAUTH command|smtp auth|check (for new |your )?mail before sending|authentication required|authrequired|unauthenticated senders|must (authenticate|be authenticated)|requires authentication|password|log ?in with|no identity changes|starttls|\bTLS\b|encryption required/i,
  // "553 5.1.8 <root@host>... Domain of sender address root@host does not exist", "550 5.1.0
  // <bounce@x> sender rejected", "550 Unroutable sender address", "550 Bad SPF records for [..]",
  // "550 DMARC check failed", "550 5.7.509 Access denied, sending domain [X] does not pass DMARC
  // verification", Postfix "550 5.1.0 <baz@example.com>: Sender address rejected: User unknown in
  // local recipient table", "554 Message rejected: Email address is not verified" (Amazon SES),
  // "550 5.7.1 can't determine Purported Responsible Address"; not Gmail's "go to Email sender
  // guidelines" under its content refusals, nor "Duplicate header 'DKIM-Signature'"
  sender:
    /\bsenders?\b(?! guidelines)|\bSPF\b|\bDMARC\b|\bDKIM\b(?!-signature)|authentication (information|checks|results)|mail[ -]?from(?! \[?\d| your)|envelope from|from address|return.?path|purported\s+responsible|not owned by user|email address is not verified|not a registered gateway user/i,
  // "550 <x> - 203.0.113.222 has sent to too many recipients this hour. IB607" (GoDaddy), "550 Ip
  // frequency limited" / "550 Connection frequency limited" (Tencent), "554 ... You've reached your
  // daily relay quota", Gmail "550 5.4.5 Daily SMTP relay limit exceeded", "552 Too many recipients"
  rate: /too many (recipients|messages|connections)|frequency limited|rate limit|(relay|sending|daily|hourly) (limit|quota)|sending too fast|throttl/i,
  // Postfix "554 5.7.1 Service unavailable; Client host [x] blocked using zen.spamhaus.org",
  // "Client host rejected: cannot find your reverse hostname, [x]", "504 5.5.2 <foo>: Helo command
  // rejected: need fully-qualified hostname"; Microsoft "550 5.7.606 Access denied, banned sending
  // IP [x]", "... part of their network is on our block list (S3150)"; "551 Server access [x]
  // forbidden by invalid RDNS record of your mail server"; "550 5.7.1 Connections not accepted from
  // servers without a valid sender domain. Fix reverse DNS for x"; Sendmail "550 5.7.1 Relaying
  // denied. IP name possibly forged [x]"; Gmail "550-5.7.25 The IP address
  // sending this message does not have a PTR record setup"; "554 Host network not allowed" (Mimecast),
  // "Blocked - see https://ipcheck.proofpoint.com/?ip=x"; refusals of our interface or source
  // address ("not a recognized source")
  host: /client host|\bhelo\b|\behlo\b|reverse (dns|hostname)|\bPTR\b|\brdns\b|ip name lookup|mismatches client ip|(your|sending) (ip|network|server|mail server|location|host)\b|^IP=\d|invalid ip|ip name possibly forged|\bip (address )?(is )?(in|on|listed|blacklisted|blocked|not authori[sz]ed)|blocked ip|banned|block ?list|black ?list|spamhaus|spamcop|barracuda|dnsbl|\bRBL\b|reputation|sbrs|host network|connections? (not accepted|rejected)|messages from \[?\d|mail from \d|server of your ISP|administratively denied|not authorized to send email directly|junkmail|ipcheck|unauthori[sz]ed interface|not a recognized source/i,
  // Postfix "550 5.1.1 <x>: Recipient address rejected: User unknown in virtual mailbox table", Gmail
  // "550-5.1.1 The email account that you tried to reach does not exist", "The email account that
  // you tried to reach is disabled" / "is inactive", Yahoo "554 delivery error: dd This user doesn't
  // have a yahoo.com account", Microsoft "550 5.1.10 RESOLVER.ADR.RecipientNotFound", Outlook "550
  // 5.5.0 Requested action not taken: mailbox unavailable", qmail "sorry, no mailbox here by that
  // name", Exim "Unrouteable address", Orange "Invalid recipient", "550 Mailbox is frozen",
  // "525 5.7.13 Disabled recipient address", "551 not our user", "recipient no longer on server",
  // "553 Invalid/inactive user.", OpenSMTPD "550 5.1.1 Bad destination mailbox address", "550 5.1.6
  // Destination mailbox has moved, No forwarding address", Sendmail "550 5.1.1 <x>... Addressee
  // unknown", Exim "550 Bad user"
  mailbox:
    /user(name)? (is )?unknown|unknown (user|recipient|local part|address)|no such (user|person|mailbox|recipient|account)|does ?n[o']t (exist|have an? [\w.-]* ?account)|dosn't exist|not exist|(user|mailbox|recipient|address|account) not found|not found by smtp address lookup|recipnotfound|recipientnotfound|invalid (recipient|mailbox|address|email address)|(is )?not a valid mailbox|unknown or illegal (user|alias)|invalid\/inactive user|(invalid|inactive) user\b|not listed in (the )?(public )?(name|address|directory)|tried to reach is (disabled|inactive)|mailbox (is )?(unavailable|not available|disabled|inactive|frozen|locked)|no mailbox|unrouteable address|(account|mailbox|user|recipient|address)( \S+)? (is|has been) (disabled|inactive|deactivated|discontinued|blocked|suspended|locked)|inactive email address|disabled recipient|utilisateur inconnu|destinataire invalide|not our (user|customer)|no longer (on server|available)|could not be found|delivery error: dd |address error|not handled by this system|recipient (unknown|rejected|not found)|has moved|no forwarding address|bad destination mailbox address(?! syntax)|addressee unknown|\bbad (user|recipient)\b|mailbox <> unknown|\baddress rejected\b(?!:)/i,
  // Gmail "553 5.1.2 We weren't able to find the recipient domain", "550 Host unknown", "550 5.4.4
  // Invalid domain", Postfix "556 5.1.10 <x>: Recipient address rejected: Domain x does not accept
  // mail (nullMX)", "550 Host does not accept mail", Sendmail "553 5.1.2 <x>... Unrecognized host name x"
  domain:
    /recipient domain|host unknown|unrecogni[sz]ed host name|invalid domain\b(?! name)|domain (not found|does not exist|is not reachable)|does not accept mail|no such domain/i,
  // our conversation, never the mailbox (RFC 3463 x.5.x): Postfix "503 5.5.1 Error: need MAIL
  // command", "500 5.5.2 Error: command not recognized", qmail "503 MAIL first (#5.5.1)", "555
  // syntax error (#5.5.4)", Sendmail "503 5.0.0 Need MAIL before RCPT", "503 5.0.0 Polite people say
  // HELO first", Exim "503 sender not yet given", "501 Too many syntax or protocol errors", "500 Too
  // many unrecognized commands", "554 SMTP synchronization error", postscreen "550 5.5.1 Protocol
  // error", OpenSMTPD "503 5.5.1 Invalid command: Command not allowed at this point.", Haraka "503
  // Use MAIL before RCPT", an address's form ("501 5.1.3 Bad recipient address syntax", Exim "501 x:
  // recipient address must contain a domain", "533 no support for internationalised mailbox name")
  protocol:
    /bad sequence|syntax error|syntactically|\bsyntax:|bad (\w+ )*syntax|address syntax|unrecogni[sz]ed (command|parameter)|command (unrecogni[sz]ed|not recogni[sz]ed)|too many unrecogni[sz]ed|(not|un)implemented|\b(mail|rcpt|helo|ehlo) first\b|need (mail|rcpt|helo)|(helo|ehlo)\/?(ehlo|helo)? (required|first)|introduce yourself|(use|need) \S+ before|must precede|not yet given|already (given|specified|identified)|protocol error|synchroni[sz]ation|pipelining|nonmail commands|not allowed at this point|in smtp commands|must (have an address operand|contain a domain|include (a )?host ?name)|(hostname|host name|user address|domain name|fully.qualified address) required|need fully-qualified address|missing recipient|too many parameters|address too long|prescan|unsupported option|command parameters|(used|not) (when not )?advertised|internationali[sz]ed mailbox|smtputf8|(helo|ehlo) requires|accept addresses like that/i,
  // Gmail "550 5.7.1 ... this message is likely unsolicited mail", "550 5.7.1 Message content
  // rejected, UBE", "552 5.3.4 Message too large", "550 Virus Detected; Content Rejected", "554 5.7.0
  // Reject, id=... - SPAM", Yahoo "554 Message not allowed", "554 5.7.9 Message not accepted for policy
  // reasons", Orange "550 5.2.0 Mail rejete. Mail rejected. OFR_506 [506]" (its anti-spam code),
  // Haraka "550 Message too big!", OpenSMTPD "500 5.4.6 Routing loop detected: Loop detected",
  // "550 5.7.1 Delivery not authorized, message refused: Message is not RFC 2822 compliant"
  message:
    /content|mail rejected|too big|loop detected|looping|rfc ?(2822|5322) compliant|mail rejete|addresses in from:|spam|unsolicited|virus|attachment|header|RFC ?5322|\bUBE\b|too large|message size|size limit|exceeds .*(size|limit)|message length|malformed|8-bit|too many hops|mail loop|message (is )?not (allowed|accepted)|message filtered|line limit/i,
  // "550 5.3.5 ... Internal System Error", "554 5.3.0 ... Internal system error", Orange "550 5.5.0
  // Service refuse. Veuillez essayer plus tard", "554 Transaction failed", "554 Service currently
  // unavailable", OpenSMTPD "421 4.3.2 System not accepting network messages"
  server:
    /not accepting (connections|network messages)|internal|system error|local error|server error|temporar|try (again )?later|plus tard|service (is )?(currently )?(unavailable|not available|refused?)|transaction failed|configuration error|resources/i,
  // Postfix "554 5.7.1 <x>: Relay access denied", access(5) "554 5.7.1 <x>: Recipient address
  // rejected: Access denied", "550 Denied by policy", "550 5.7.0 Local Policy Violation", Gmail
  // "550 5.7.1 The user or domain that you are sending to (or from) has a policy that prohibited the
  // mail"; qmail "553 sorry, that domain isn't in my list of allowed rcpthosts (#5.7.1)"; Exim "550
  // Administrative prohibition", "550 x is a closed mailing list"; Haraka "550 I cannot deliver mail
  // for <x>" (no plugin took the recipient: a relay refusal)
  policy:
    /relay(?! recipient table)|rcpthosts|policy|prohibition|closed mailing list|cannot deliver mail for|access denied|prohibited|not (allowed|permitted|authori[sz]ed)|denied|refused|(?<!account is )\bblocked\b|recipient preferences/i,
};
