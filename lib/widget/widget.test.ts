import { readFileSync } from 'node:fs';
import { Window } from 'happy-dom';
import { afterEach, describe, expect, it } from 'vitest';

// The form widget (lib/widget/widget.js) when the service refuses or is down, in happy-dom: by
// default the form goes through unchecked (fail open); with data-fail="closed" it is held, with a
// message, until a check answers. e2e/widget.spec.ts runs the same in Chromium against the server.
const SOURCE = readFileSync(new URL('./widget.js', import.meta.url), 'utf8');
const DELIVERABLE = { email: 'a@shop.test', status: 'deliverable', disposable: false, role: false, free: false, did_you_mean: null };

type Answer = () => Promise<Response>;
let open: Window[] = [];
afterEach(async () => {
  await Promise.all(open.map((w) => w.happyDOM.close()));
  open = [];
});

function page(attributes: Record<string, string>, answers: Answer[]) {
  // our own script, run as a page would: its code is trusted here
  const window = new Window({
    url: 'https://shop.example/signup',
    settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true, disableJavaScriptFileLoading: true },
  });
  open.push(window);
  const document = window.document;
  document.body.innerHTML = '<form action="/done"><input id="email" type="email" name="email"><button type="submit">Sign up</button></form>';
  const asked: string[] = [];
  (window as unknown as { fetch: unknown }).fetch = (url: string) => {
    asked.push(url);
    return (answers.shift() ?? answers[answers.length - 1] ?? (() => Promise.reject(new TypeError('Failed to fetch'))))();
  };
  const script = document.createElement('script');
  for (const [name, value] of Object.entries({ 'data-key': 'ev_pub_test', 'data-api': 'https://verify.example', 'data-timeout': '500', ...attributes }))
    script.setAttribute(name, value);
  script.textContent = SOURCE;
  document.body.appendChild(script);
  const form = document.querySelector('form')!;
  const email = document.getElementById('email')!;
  let submitted = 0;
  // the site's own handler: it sees only what the widget lets through
  form.addEventListener('submit', (event) => {
    submitted++;
    event.preventDefault();
  });
  return {
    asked,
    email,
    submitted: () => submitted,
    message: () => document.querySelector('.ev-message'),
    async submit(address: string) {
      (email as unknown as HTMLInputElement).value = address;
      form.requestSubmit();
      await new Promise((r) => setTimeout(r, 100));
    },
  };
}

const refused = () => Promise.resolve(new Response(JSON.stringify({ success: false, error: 'rate_limit', message: 'spent' }), { status: 429 }));
const down = () => Promise.reject(new TypeError('Failed to fetch'));
const answered = () => Promise.resolve(Response.json(DELIVERABLE));

describe('the widget when the service does not answer', () => {
  it('lets the form through by default (fail open), on a 429 and when it is down', async () => {
    for (const answer of [refused, down]) {
      const p = page({}, [answer]);
      await p.submit('a@shop.test');
      expect(p.asked).toHaveLength(1);
      expect(p.submitted()).toBe(1);
      expect(p.email.getAttribute('data-ev-state')).toBe('unavailable');
      expect(p.message()?.hasAttribute('hidden')).toBe(true);
    }
  });

  it('with data-fail="closed", holds the form with a message until a check answers', async () => {
    const p = page({ 'data-fail': 'closed', 'data-message-unavailable': 'Try again soon.' }, [refused, down, answered]);
    await p.submit('a@shop.test');
    expect(p.submitted()).toBe(0);
    expect(p.email.getAttribute('data-ev-state')).toBe('unavailable');
    expect(p.email.getAttribute('aria-invalid')).toBe('true');
    expect(p.message()?.textContent).toBe('Try again soon.');
    expect(p.message()?.hasAttribute('hidden')).toBe(false);
    await p.submit('a@shop.test');
    expect(p.submitted()).toBe(0);
    // each submit asks again; once one answers, the form goes
    await p.submit('a@shop.test');
    expect(p.asked).toHaveLength(3);
    expect(p.submitted()).toBe(1);
    expect(p.email.getAttribute('data-ev-state')).toBe('ok');
    expect(p.email.hasAttribute('aria-invalid')).toBe(false);
  });

  it('answers an address checked before the outage from what it holds, and moves no message while the submit button is pressed', async () => {
    const p = page({ 'data-fail': 'closed' }, [answered]);
    await p.submit('a@shop.test');
    expect(p.submitted()).toBe(1);
    await p.submit('b@shop.test');
    expect(p.submitted()).toBe(1);
    expect(p.message()?.hasAttribute('hidden')).toBe(false);
    const asked = p.asked.length;
    // a press on Sign up: the field's blur commits the change; hiding the message now would move the
    // button from under the pointer and lose the click (e2e/widget.spec.ts, in Chromium)
    const button = p.email.ownerDocument.querySelector('button')!;
    const event = (type: string, target: { dispatchEvent: (e: never) => boolean }) =>
      target.dispatchEvent(new p.email.ownerDocument.defaultView!.Event(type, { bubbles: true }) as never);
    (p.email as unknown as HTMLInputElement).value = 'a@shop.test';
    event('pointerdown', button);
    event('change', p.email);
    await new Promise((r) => setTimeout(r, 20));
    expect(p.message()?.hasAttribute('hidden')).toBe(false);
    event('pointerup', button);
    await new Promise((r) => setTimeout(r, 20));
    expect(p.message()?.hasAttribute('hidden')).toBe(true);
    expect(p.email.getAttribute('data-ev-state')).toBe('ok');
    await p.submit('a@shop.test');
    expect(p.asked).toHaveLength(asked);
    expect(p.submitted()).toBe(2);
  });
});
