// Reviews end to end over the local HTTP server: MCP SDK client -> `vimrelay serve --http` on 127.0.0.1
// -> a real Neovim whose user decides with keys. The cases are in reviews-suite.ts, shared by every chain.
import { describeReviews } from './reviews-suite.ts';

describeReviews('http');
