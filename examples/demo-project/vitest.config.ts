import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Week numbers must not depend on the machine's zone.
    env: { TZ: 'America/Los_Angeles' },
  },
});
