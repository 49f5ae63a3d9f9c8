import { expect, test } from '@playwright/test';
import { sandboxOn, signUp } from './helpers';

// Every page the dashboard has must work under its own Content-Security-Policy: a violation would
// mean either a broken page or a policy loosened until it means nothing.
test('every page carries the security headers and breaks none of its own policy', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (load|execute|apply|connect|frame)/i.test(message.text())) violations.push(message.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`Refused to load: CSP ${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });

  const signin = await page.goto('/signin');
  const headers = signin!.headers();
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['content-security-policy']).toContain("default-src 'self'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  expect(headers['x-frame-options']).toBe('DENY');

  await signUp(page);
  await sandboxOn(page);
  for (const path of ['/lists', '/check', '/history', '/settings']) {
    const response = await page.goto(path);
    expect(response!.headers()['content-security-policy'], path).toContain("frame-ancestors 'none'");
    await page.waitForLoadState('networkidle');
  }
  expect(violations).toEqual([]);

  // The API answers carry them too (nosniff matters most on downloads).
  const api = await page.request.get('/v1/history');
  expect(api.headers()['x-content-type-options']).toBe('nosniff');
});

test('another site cannot frame the dashboard', async ({ page, baseURL }) => {
  // A page of another origin (a data: URL) frames the sign-in page and waits for the frame to load.
  await page.goto('data:text/html,<body></body>');
  await page.evaluate(
    (src) =>
      new Promise<void>((resolve) => {
        const frame = document.createElement('iframe');
        frame.onload = () => resolve();
        frame.src = src;
        document.body.append(frame);
      }),
    `${baseURL}/signin`,
  );
  // Framed, the sign-in form would be there to be clicked through; refused, the frame is an error page.
  const framed = page.frames().filter((frame) => frame !== page.mainFrame());
  expect(framed).toHaveLength(1);
  expect(await framed[0]!.locator('input[type="password"]').count()).toBe(0);
});
