import { expect, test } from '@playwright/test';
import Papa from 'papaparse';
import { sandboxOn, signUp } from '../helpers';

// The README's picture of the job page (docs/images/job-page.png): a CRM export of 40 contacts
// verified in sandbox mode, whose engine judges ordinary addresses by a stable hash into a realistic
// mix (lib/verifier/sandbox.ts), so the picture is the same on every run. Every run writes
// test-results/screenshots (ignored); E2E_SCREENSHOTS=1 refreshes the committed image:
//   E2E_SCREENSHOTS=1 npx playwright test e2e/screenshots/readme.spec.ts
const contacts: [string, string, string, string][] = [
  ['Maria', 'Garcia', 'maria.garcia@gmail.com', 'Northwind Traders'],
  ['James', 'Chen', 'james.chen@outlook.com', 'Contoso'],
  ['Aisha', 'Okafor', 'aisha@fabrikam.com', 'Fabrikam'],
  ['Lukas', 'Schmidt', 'lukas.schmidt@web.de', 'Tailspin Toys'],
  ['Sofia', 'Rossi', 'sofia.rossi@libero.it', 'Wingtip'],
  ['Noah', 'Williams', 'noah.w@yahoo.com', 'Adventure Works'],
  ['Emma', 'Dubois', 'emma.dubois@orange.fr', 'Litware'],
  ['Hiroshi', 'Tanaka', 'h.tanaka@contoso.jp', 'Contoso'],
  ['Olivia', 'Brown', 'olivia.brown@gmial.com', 'Proseware'],
  ['Liam', 'Murphy', 'liam@northwindtraders.com', 'Northwind Traders'],
  ['Chloe', 'Martin', 'info@wingtiptoys.com', 'Wingtip'],
  ['Mateo', 'Fernandez', 'mateo.fernandez@hotmail.com', 'Woodgrove Bank'],
  ['Zoe', 'Taylor', 'zoe.taylor@mailinator.com', 'Fourth Coffee'],
  ['Arjun', 'Patel', 'arjun.patel@icloud.com', 'Relecloud'],
  ['Hannah', 'Müller', 'hannah.mueller@gmx.de', 'Tailspin Toys'],
  ['Ethan', 'Johnson', 'ethan@adventure-works.com', 'Adventure Works'],
  ['Ines', 'Silva', 'ines.silva@sapo.pt', 'Alpine Ski House'],
  ['Jack', 'Wilson', 'jack.wilson@protonmail.com', 'Coho Winery'],
  ['Mia', 'Anderson', 'sales@fabrikam.com', 'Fabrikam'],
  ['Yusuf', 'Demir', 'yusuf.demir@gmail.com', "Margie's Travel"],
  ['Ava', 'Thomas', 'ava.thomas@outlook.com', 'Lucerne Publishing'],
  ['Leo', 'Novak', 'leo.novak@seznam.cz', 'Trey Research'],
  ['Grace', 'Lee', 'grace.lee@woodgrovebank.com', 'Woodgrove Bank'],
  ['Oscar', 'Nilsson', 'oscar.nilsson@telia.se', 'Graphic Design Institute'],
  ['Amelia', 'Clark', 'amelia.clark@yahoo.co.uk', 'Blue Yonder Airlines'],
  ['Daniel', 'Kowalski', 'daniel.kowalski@wp.pl', 'Humongous Insurance'],
  ['Isla', 'Walker', 'isla.walker@gmail.con', 'Proseware'],
  ['Lucas', 'Moreau', 'lucas.moreau@free.fr', 'Litware'],
  ['Nora', 'Hansen', 'nora.hansen@online.no', 'Fourth Coffee'],
  ['Samuel', 'Green', 'sam.green@relecloud.com', 'Relecloud'],
  ['Elena', 'Popescu', 'elena.popescu@yahoo.ro', 'Coho Winery'],
  ['Ryan', 'Hall', 'ryan.hall@aol.com', 'Trey Research'],
  ['Layla', 'Haddad', 'layla.haddad@hotmail.com', 'Alpine Ski House'],
  ['Felix', 'Wagner', 'felix.wagner@t-online.de', 'Blue Yonder Airlines'],
  ['Lily', 'Young', 'lily.young@lucernepublishing.com', 'Lucerne Publishing'],
  ['Omar', 'Farouk', 'omar.farouk@gmail.com', 'Humongous Insurance'],
  ['Julia', 'Novotná', 'julia.novotna@centrum.cz', 'Graphic Design Institute'],
  ['Max', 'King', 'max.king@10minutemail.com', "Margie's Travel"],
  ['Ella', 'Wright', 'ella.wright@icloud.com', 'Northwind Traders'],
  ['Adam', 'Scott', 'adam scott@outlook.com', 'Contoso'],
];
const csv = Papa.unparse([['first_name', 'last_name', 'email', 'company'], ...contacts]);

test('the job page of a verified list, for the README', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1560 });
  await signUp(page, 'ana@northwind.example');
  await sandboxOn(page);
  await page.getByTestId('file-input').setInputFiles({ name: 'crm-export-november.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await expect(page.getByTestId('row-count')).toHaveText(String(contacts.length));
  await page.getByRole('button', { name: `Verify ${contacts.length} rows` }).click();
  await expect(page).toHaveURL(/\/jobs\/[^/]+$/);
  await expect(page.getByTestId('job-progress')).toHaveText('100%', { timeout: 90_000 });
  await expect(page.getByTestId('results-table').locator('tbody tr').first()).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  const dir = process.env.E2E_SCREENSHOTS === '1' ? 'docs/images' : 'test-results/screenshots';
  await page.screenshot({ path: `${dir}/job-page.png` });
});
