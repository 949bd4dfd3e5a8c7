// The tools end to end over the local stdio server: MCP SDK client spawning `vimrelay serve --stdio`
// -> a real headless Neovim holding non-ASCII text. The cases are in tools-suite.ts, shared by every chain.
import { describeTools } from './tools-suite.ts';

describeTools('stdio');
