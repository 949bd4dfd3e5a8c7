// Tests that run on Node against real nvim, a real relay in local workerd and a real MCP client.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/protocol/**/*.test.ts', 'test/agent/**/*.test.ts', 'test/plugin/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    setupFiles: ['test/setup/keep-alive.ts', 'test/setup/temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: end-to-end files each start workerd and editors; keep parallelism modest.
    maxWorkers: 2,
  },
});
