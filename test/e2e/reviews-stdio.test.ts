// Reviews end to end over the local stdio server: MCP SDK client spawning `vimrelay serve --stdio`
// -> a real Neovim whose user decides with keys. The cases are in reviews-suite.ts, shared by every chain.
import { describeReviews } from './reviews-suite.ts';

describeReviews('stdio');
