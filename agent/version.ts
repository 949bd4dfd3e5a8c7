/**
 * The agent's version, as the relay's hello and `vimrelay --version` say it. It is package.json's
 * `version` (test/agent/cli/help.test.ts holds the two together): a constant rather than a read of
 * package.json, so that the compiled agent needs no file beside it to know it.
 */
export const AGENT_VERSION = '0.1.0';
