// The tools end to end over the local HTTP server: MCP SDK client -> `vimrelay serve --http` on 127.0.0.1
// -> a real headless Neovim holding non-ASCII text. The cases are in tools-suite.ts, shared by every chain.
import { describeTools } from './tools-suite.ts';

describeTools('http');
