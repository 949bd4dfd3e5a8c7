// Reviews end to end over the relay: MCP SDK client -> local workerd (Worker + Hub) -> the vimrelay agent process
// -> a real Neovim whose user decides with keys. The cases are in reviews-suite.ts, shared by every chain.
import { describeReviews } from './reviews-suite.ts';

describeReviews('relay');
