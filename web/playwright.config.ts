import { defineConfig } from '@playwright/test';

// The suite drives Debian's Chromium (Playwright cannot download a browser
// here) against the server built by `make build`, started on its own port.
const port = Number(process.env.E2E_PORT || 8181);
export const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // Screenshots are for people to look at (make screenshots), not checks:
  // make test leaves them out.
  grepInvert: process.env.SCREENSHOTS ? undefined : /@screenshot/,
  // The stories wait on the demos' virtual time and sockets between their
  // browser's bursts: three share two cores well; six time out.
  workers: Number(process.env.E2E_WORKERS || 3),
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    launchOptions: {
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  webServer: {
    command: '../bin/reconcile-demo',
    url: `${baseURL}/readyz`,
    // The demos' time runs three times faster than their speed says (a
    // test-only setting): the stories wait on it.
    env: { ADDR: `127.0.0.1:${port}`, SESSION_TTL: '2m', TIME_SCALE: process.env.E2E_TIME_SCALE || '3' },
    reuseExistingServer: false,
    timeout: 30_000,
  },
});
